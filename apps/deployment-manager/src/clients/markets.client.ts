import { DEFAULT_NODE_CAPACITY, type MarketRecord, type NodeRecord, type NodeState } from '@ocg/contracts';
import { isAddress } from '@ocg/auth';
import { NotFoundError } from '@ocg/http';
import type { ServiceClient } from './service-client';

/** What a claim needs of a registered node. */
export interface NodeStanding {
  market: string;
  state: NodeState;
  capacity: number;
}

interface Cached {
  market: MarketRecord;
  expiresAt: number;
}

/**
 * Markets from host-manager (`GET /internal/markets/{market}`), by address or
 * name, kept briefly: a job takes the price at post time, so a price change
 * reaches new jobs within the TTL.
 */
export class MarketsClient {
  private readonly cache = new Map<string, Cached>();
  private readonly nodeMarkets = new Map<string, { node: NodeStanding; expiresAt: number }>();

  constructor(
    private readonly service: ServiceClient,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A registered node's market, state and capacity (`GET /internal/nodes/{node}`), kept as briefly as markets. */
  async nodeStanding(node: string): Promise<NodeStanding | undefined> {
    const key = `node:${node}`;
    const hit = this.nodeMarkets.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.node;
    const record = await this.node(node);
    if (!record) return undefined;
    if (this.nodeMarkets.size > 10000) this.nodeMarkets.clear();
    // Records from a host-manager older than node control carry neither: active, the default capacity.
    const standing: NodeStanding = { market: record.market, state: record.state ?? 'ACTIVE', capacity: record.capacity ?? DEFAULT_NODE_CAPACITY };
    // A disabled node is asked about again each time, so enabling it takes effect at its next claim.
    if (standing.state === 'ACTIVE') this.nodeMarkets.set(key, { node: standing, expiresAt: this.now() + this.ttlMs });
    return standing;
  }

  /** host-manager changed the node (disabled, removed): the next claim asks again. */
  forgetNode(node: string): void {
    this.nodeMarkets.delete(`node:${node}`);
  }

  /** host-manager's record of a node, uncached (status and lastSeenAt are live); undefined when it is not registered. */
  async node(node: string): Promise<NodeRecord | undefined> {
    const res = await this.service.call<NodeRecord>({ method: 'GET', path: `/internal/nodes/${encodeURIComponent(node)}` });
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw this.service.unavailable(`status ${res.status} looking up node ${node}`);
    return res.body;
  }

  async resolve(ref: string): Promise<MarketRecord> {
    const key = cacheKey(ref);
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.market;
    const res = await this.service.call<MarketRecord>({ method: 'GET', path: `/internal/markets/${encodeURIComponent(ref)}` });
    if (res.status === 404) throw new NotFoundError(`No market with the address or name "${ref}"`);
    if (res.status !== 200) throw this.service.unavailable(`status ${res.status} resolving market "${ref}"`);
    if (this.cache.size > 1000) this.cache.clear();
    const entry = { market: res.body, expiresAt: this.now() + this.ttlMs };
    this.cache.set(key, entry);
    this.cache.set(cacheKey(res.body.address), entry);
    return res.body;
  }
}

/** Addresses are case-sensitive base58; names compare ignoring case (host-manager's rule). */
const cacheKey = (ref: string): string => (isAddress(ref) ? ref : `name:${ref.toLowerCase()}`);
