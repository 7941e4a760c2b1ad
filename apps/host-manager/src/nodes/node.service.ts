import { createHash } from 'node:crypto';
import type {
  ListMarketNodesResponse,
  ListNodesResponse,
  NodeHeartbeatRequest,
  NodeHeartbeatResponse,
  NodeRecord,
  NodeSpecs,
  RegisterNodeRequest,
  RegisterNodeResponse,
} from '@ocg/contracts';
import { createAddressPolicy, ForbiddenError, NotFoundError, urlRefusal, ValidationError, type AddressPolicy } from '@ocg/http';
import { DEFAULT_NODE_CAPACITY } from '@ocg/contracts';
import { joinTokenMatches } from '../markets/join-token';
import type { MarketEntity } from '../markets/market.entity';
import type { MarketService } from '../markets/market.service';
import type { NodeEntity } from './node.entity';
import { toNodeRecord } from './node.records';
import type { NodeRepository } from './node.repository';
import type { NodePresence } from './presence';

export interface ListNodesQuery {
  market?: string;
  limit?: number;
  offset?: number;
}

export class NodeService {
  constructor(
    private readonly nodes: NodeRepository,
    private readonly markets: MarketService,
    private readonly presence: NodePresence,
    /** Where ingress URLs may lead (the gateway checks again when it connects, after DNS). */
    private readonly ingressPolicy: AddressPolicy = createAddressPolicy(),
  ) {}

  /** Joins (or re-joins, e.g. after a restart or to move markets) the node whose key signed the request. */
  async register(address: string, body: RegisterNodeRequest): Promise<RegisterNodeResponse> {
    checkIngressUrl(body.ingressUrl, this.ingressPolicy);
    const market = await this.markets.resolve(body.market);
    if (!joinTokenMatches(body.joinToken, market.joinTokenHash)) throw new ForbiddenError(`The join token is not the current one of market "${market.name}"`);
    checkGpus(market, body.specs);
    await this.refuseDisabled(address);
    const now = new Date();
    const capacity = body.capacity ?? DEFAULT_NODE_CAPACITY;
    await this.nodes.register({ address, marketAddress: market.address, specs: body.specs, domain: body.domain, ingressUrl: body.ingressUrl, capacity, at: now });
    await this.presence.touch(address, now.getTime());
    return { node: await this.get(address), ...this.timing(), warmResources: market.warmResources, warmResourcesVersion: warmVersion(market) };
  }

  async heartbeat(address: string, body: NodeHeartbeatRequest): Promise<NodeHeartbeatResponse> {
    const node = await this.nodes.byAddress(address);
    if (!node) throw new NotFoundError('This node is not registered: POST /nodes/register first');
    if (node.disabledAt) throw disabled(address);
    if (body.specs) checkGpus(node.market, body.specs);
    const due = await this.presence.touch(address);
    if (due || body.specs) await this.nodes.seen(address, body.specs);
    const version = warmVersion(node.market);
    // The list only when the node's copy is not this one: a heartbeat stays small.
    const warm = body.warmResourcesVersion === version ? {} : { warmResources: node.market.warmResources };
    return { address, status: 'ONLINE', ...this.timing(), warmResourcesVersion: version, ...warm };
  }

  async get(address: string): Promise<NodeRecord> {
    const node = await this.nodes.byAddress(address);
    if (!node) throw new NotFoundError(`No node with the address "${address}"`);
    return (await this.records([node]))[0];
  }

  /** By address in any case: base58 addresses are unique by their lowercase form in practice, and host names are lowercased. */
  async getIgnoringCase(address: string): Promise<NodeRecord> {
    const node = await this.nodes.byAddressIgnoringCase(address);
    if (!node) throw new NotFoundError(`No node with the address "${address}"`);
    return (await this.records([node]))[0];
  }

  async list(query: ListNodesQuery): Promise<ListNodesResponse> {
    const market = query.market === undefined ? undefined : await this.markets.resolve(query.market);
    const [rows, total] = await this.nodes.page({ marketAddress: market?.address, take: clamp(query.limit ?? 100, 1, 1000), skip: Math.max(0, query.offset ?? 0) });
    return { nodes: await this.records(rows), total };
  }

  /** A market's nodes for its public page: status and specs, not where they are reached. */
  async ofMarket(market: string, limit = 100): Promise<ListMarketNodesResponse> {
    const { nodes, total } = await this.list({ market, limit });
    return { nodes: nodes.map(({ address, status, specs, lastSeenAt }) => ({ address, status, specs, lastSeenAt })), total };
  }

  private async records(nodes: NodeEntity[]): Promise<NodeRecord[]> {
    const present = await this.presence.present(nodes.map((n) => n.address));
    // Without Redis, a node seen within the TTL counts as online (heartbeats then write lastSeenAt every time);
    // lastSeenAt may lag a live node by the write interval (written that rarely while Redis was up).
    const cutoff = Date.now() - this.presence.lastSeenLagSeconds * 1000;
    const online = (n: NodeEntity) => (present ? present.has(n.address) : (n.lastSeenAt?.getTime() ?? 0) >= cutoff);
    return nodes.map((n) => toNodeRecord(n, n.market, online(n) ? 'ONLINE' : 'OFFLINE'));
  }

  /** A disabled node stays disabled: registering again does not bring it back (an operator enables it). */
  private async refuseDisabled(address: string): Promise<void> {
    if (await this.nodes.disabledAt(address)) throw disabled(address);
  }

  private timing() {
    return { heartbeatIntervalSeconds: this.presence.heartbeatIntervalSeconds, presenceTtlSeconds: this.presence.ttlSeconds };
  }
}

/** The gateway proxies to this URL for anyone: it must not lead into the operator's own network (ADR 0011). */
function checkIngressUrl(ingressUrl: string, policy: AddressPolicy): void {
  const refusal = urlRefusal(ingressUrl, policy);
  if (!refusal) return;
  const message = `${refusal}; the gateway only reaches public addresses unless its operator allows others (ALLOW_PRIVATE_INGRESS, INGRESS_ALLOW_CIDRS)`;
  throw new ValidationError(`Validation failed: /ingressUrl: ${message}`, [{ path: '/ingressUrl', message }]);
}

function checkGpus(market: MarketEntity, specs: NodeSpecs): void {
  if (!market.gpuRequired || specs.gpus.length > 0) return;
  const message = `market "${market.name}" requires GPUs: report at least one`;
  throw new ValidationError(`Validation failed: /specs/gpus: ${message}`, [{ path: '/specs/gpus', message }]);
}

/** Names a market's list of resources kept warm: a digest of its JSON text. */
function warmVersion(market: MarketEntity): string {
  return createHash('sha256').update(JSON.stringify(market.warmResources)).digest('hex').slice(0, 16);
}

const disabled = (address: string) => new ForbiddenError(`Node ${address} is disabled by an operator`);

const clamp = (n: number, min: number, max: number): number => Math.min(max, Math.max(min, Math.floor(n)));
