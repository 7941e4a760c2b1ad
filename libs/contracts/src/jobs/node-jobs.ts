/**
 * Node-facing job routes (deployment-manager), signed by the node key
 * (`x-ocg-node` + `authorization`, like registration with host-manager).
 */
import type { JobLogLine, JobOpState } from './jobs';
import type { NodeResourceProgress } from '../node/node-api';

export interface ClaimJobRequest {
  /**
   * The market the node registered in: its address or name.
   * @minLength 1
   * @maxLength 200
   */
  market: string;
  /**
   * Wait up to this many seconds for a job when none is queued (long poll). Default 0: answer at once.
   * @isInt
   * @minimum 0
   * @maximum 25
   */
  waitSeconds?: number;
}

/** What a node receives to run. */
export interface JobAssignmentRecord {
  /** The job address. */
  job: string;
  /** The poster's wallet address: node API requests must be signed by it. */
  poster: string;
  /** The normalized job definition (every member present). */
  definition: { [member: string]: unknown };
  /** Unix ms when the job's paid duration is over. */
  deadline: number;
  /** What each of the job's containers may take, from the market's settings (absent from older control planes). */
  containerLimits?: JobContainerLimits;
}

/** Per container of one job: the market's per-container limits, and its per-job sums shared out between the containers. */
export interface JobContainerLimits {
  cpus: number;
  /** @isLong */
  memoryBytes: number;
  /** @isInt */
  pids: number;
  /**
   * Bytes of the container's writable layer.
   * @isLong
   */
  diskBytes: number;
  /**
   * Bytes of all of the job's volumes together (absent from older control planes).
   * @isLong
   */
  volumeBytes?: number;
  /**
   * Bytes of one remote resource the node fetches for the job (absent from older control planes).
   * @isLong
   */
  bytesPerResource?: number;
  /**
   * Bytes of all of the job's remote resources together (absent from older control planes).
   * @isLong
   */
  resourceBytesPerJob?: number;
  /** `uid[:gid]` to run as, or null for the image's user. */
  user: string | null;
  readOnlyRootFilesystem: boolean;
}

export interface ClaimJobResponse {
  /** The oldest queued job of the market, now RUNNING on the calling node; null when none is queued. */
  assignment: JobAssignmentRecord | null;
}

export interface NodeOpReport {
  /**
   * @minLength 1
   * @maxLength 63
   */
  id: string;
  /** @maxLength 200 */
  group?: string | null;
  /**
   * @isInt
   * @minimum 0
   */
  opIndex: number;
  status: JobOpState;
  /** @isInt */
  exitCode?: number | null;
  /** @maxLength 4000 */
  reason?: string | null;
  /**
   * @isInt
   * @minimum 0
   */
  restarts?: number;
  /**
   * ISO 8601.
   * @maxLength 64
   */
  startedAt?: string | null;
  /**
   * ISO 8601.
   * @maxLength 64
   */
  endedAt?: string | null;
  /**
   * The op's last lines of output (oldest first), sent when they grew; the latest sent is kept.
   * @maxItems 20
   */
  logTail?: JobLogLine[];
  /** `fetching resources` while a pending op's resources download; null otherwise. */
  activity?: 'fetching resources' | null;
  /**
   * Its remote resources and how far their fetch got.
   * @maxItems 100
   */
  resources?: NodeResourceProgress[];
}

export interface NodeEndpointReport {
  /**
   * The op exposing the port.
   * @minLength 1
   * @maxLength 63
   */
  op: string;
  /**
   * @isInt
   * @minimum 1
   * @maximum 65535
   */
  port: number;
  /**
   * First label of the endpoint's host name: `<job>-<port>` or `<job>-<opIndex>-<port>`.
   * @minLength 1
   * @maxLength 63
   * @pattern ^[A-Za-z0-9-]+$
   */
  host: string;
  /** Passed its startup checks in the current container run. */
  ready: boolean;
  /** ONLINE while continuous checks pass. */
  online: boolean;
  /**
   * Where the gateway may connect for this endpoint without the node's ingress
   * (`<IPv4>:<port>`, forwarded to the container by the node's kernel, ADR 0092):
   * present while the endpoint is ready and online on a node with forwards on;
   * null or absent: reach it through the node's ingress.
   * @maxLength 21
   * @pattern ^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$
   */
  forward?: string | null;
  /**
   * Every first label of a host name the node serves this endpoint at
   * (`host`, and `<job>` or `<job>-<port>` when they lead here), lowercase.
   * @maxItems 8
   */
  hosts?: EndpointHostLabel[];
}

/**
 * @minLength 1
 * @maxLength 63
 * @pattern ^[a-z0-9-]+$
 */
export type EndpointHostLabel = string;

export interface ReportJobRequest {
  /** @maxItems 1000 */
  ops?: NodeOpReport[];
  /** @maxItems 1000 */
  endpoints?: NodeEndpointReport[];
}

export interface ReportJobResponse {
  /** True when the control plane wants the job stopped (stopped by the poster, duration over, reassigned). */
  stop: boolean;
}

/** How the job ended on the node. */
export type NodeJobOutcome = 'completed' | 'failed' | 'stopped';

/**
 * The values one result captured, in order (a node keeps the first 1000).
 * @maxItems 1000
 */
export type ResultValues = string[];

export interface FinishJobRequest {
  status: NodeJobOutcome;
  /** @maxLength 4000 */
  reason?: string | null;
  /** Op id → result name → captured values, in order. */
  results: { [op: string]: { [result: string]: ResultValues } };
  /** @maxItems 1000 */
  ops: NodeOpReport[];
}

export interface FinishJobResponse {
  /** The job's status after this report (a job stopped earlier stays STOPPED). */
  status: 'COMPLETED' | 'FAILED' | 'STOPPED';
  /** Content id of the stored result. */
  resultCid: string;
}

export interface SyncJobsRequest {
  /**
   * Addresses of every job running on the node.
   * @maxItems 1000
   */
  running: string[];
}

export interface JobStopOrder {
  job: string;
  /** Why, e.g. `stopped by the poster`, `duration ended`, `not assigned to this node`. */
  reason: string;
}

export interface JobDeadline {
  job: string;
  /** Unix ms when the job's paid duration is over (extensions included). */
  deadline: number;
}

export interface SyncJobsResponse {
  /** Jobs the node must stop. */
  stop: JobStopOrder[];
  /** The current deadline of each job the node may keep running. */
  deadlines: JobDeadline[];
}
