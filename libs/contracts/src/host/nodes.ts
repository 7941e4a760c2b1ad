/** Nodes: machines running node-agent, each with its own ed25519 key (its address). */
import type { WarmResource } from './markets';

export interface NodeGpu {
  /**
   * @minLength 1
   * @maxLength 128
   */
  model: string;
  /**
   * Bytes; an int64 (GPUs and nodes report more than 2^31).
   * @isLong
   * @minimum 0
   */
  memoryBytes: number;
}

export interface NodeSpecs {
  /**
   * @isInt
   * @minimum 1
   * @maximum 4096
   */
  cpus: number;
  /**
   * Bytes; an int64 (nodes report more than 2^31).
   * @isLong
   * @minimum 1
   */
  memoryBytes: number;
  /** @maxItems 64 */
  gpus: NodeGpu[];
}

export type NodeStatus = 'ONLINE' | 'OFFLINE';

/**
 * Signed by the node key (headers `x-ocg-node` and `authorization`, see the
 * host-manager README): the node's address is the key that signs.
 */
export interface RegisterNodeRequest {
  /**
   * The market to join, by address or name.
   * @minLength 1
   * @maxLength 200
   */
  market: string;
  /**
   * The market's join token, from the operator.
   * @minLength 1
   * @maxLength 200
   */
  joinToken: string;
  specs: NodeSpecs;
  /**
   * Public domain of the node: jobs are served at `https://<job>.<domain>`.
   * @minLength 1
   * @maxLength 253
   * @pattern ^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$
   */
  domain: string;
  /**
   * Where the gateway reaches the node's ingress, e.g. `http://10.0.0.5:8091`.
   * @maxLength 2048
   * @pattern ^https?://[^\s/?#]+(?:/[^\s?#]*)?$
   */
  ingressUrl: string;
  /**
   * The most jobs this node runs at once: a claim beyond it gets no job. Default 8 (node-agent's MAX_JOBS default).
   * @isInt
   * @minimum 1
   * @maximum 1000
   */
  capacity?: number;
}

/** ACTIVE: claims jobs; DISABLED by an operator: claims, heartbeats and registrations are refused until enabled. */
export type NodeState = 'ACTIVE' | 'DISABLED';

export interface NodeRecord {
  /** Base58 of the node's ed25519 public key. */
  address: string;
  /** The market's address. */
  market: string;
  marketName: string;
  /** ONLINE while heartbeats keep the node's presence alive. */
  status: NodeStatus;
  state: NodeState;
  /** The most jobs it runs at once, as declared at registration. */
  capacity: number;
  specs: NodeSpecs;
  domain: string;
  ingressUrl: string;
  /** ISO 8601 of the first registration. */
  registeredAt: string;
  /** ISO 8601; written at most once a minute, so it may lag a live node by that much. */
  lastSeenAt: string | null;
}

export interface RegisterNodeResponse {
  node: NodeRecord;
  /** Send a heartbeat at least this often. */
  heartbeatIntervalSeconds: number;
  /** Without a heartbeat for this long the node is OFFLINE. */
  presenceTtlSeconds: number;
  /** The resources the node's market keeps warm. */
  warmResources: WarmResource[];
  /** Names this list: a heartbeat that sends it back gets the list again only once it changed. */
  warmResourcesVersion: string;
}

/** Signed by the node key, like registration. */
export interface NodeHeartbeatRequest {
  /** Changed specs, when the machine changed (e.g. a GPU removed). */
  specs?: NodeSpecs;
  /**
   * The `warmResourcesVersion` of the list the node has.
   * @maxLength 64
   */
  warmResourcesVersion?: string;
}

export interface NodeHeartbeatResponse {
  address: string;
  status: NodeStatus;
  heartbeatIntervalSeconds: number;
  presenceTtlSeconds: number;
  /** The version of the market's list of resources kept warm. */
  warmResourcesVersion: string;
  /** The list, only when its version is not the one the request sent. */
  warmResources?: WarmResource[];
}

export interface NodeControlRequest {
  /**
   * Why, recorded as the end reason of the node's jobs. Default "node disabled by an operator" / "node removed by an operator".
   * @minLength 1
   * @maxLength 500
   */
  reason?: string;
}

export interface NodeControlResponse {
  address: string;
  /** DISABLED after disable, ACTIVE after enable, REMOVED after remove. */
  state: NodeState | 'REMOVED';
  /** Addresses of the node's jobs that were stopped. */
  stoppedJobs: string[];
}

export interface ListNodesResponse {
  nodes: NodeRecord[];
  /** Nodes matching the filter, over all pages. */
  total: number;
}

/** A node of a market, for the gateway's market page (internal): nothing about where it is reached. */
export interface MarketNodeRecord {
  address: string;
  status: NodeStatus;
  specs: NodeSpecs;
  /** ISO 8601; may lag a live node by up to a minute. */
  lastSeenAt: string | null;
}

export interface ListMarketNodesResponse {
  /** By registration, oldest first. */
  nodes: MarketNodeRecord[];
  /** Nodes of the market, over all pages. */
  total: number;
}

/** A node's capacity when it declares none (node-agent's MAX_JOBS default). */
export const DEFAULT_NODE_CAPACITY = 8;
