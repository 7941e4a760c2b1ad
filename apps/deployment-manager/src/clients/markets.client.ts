import { DEFAULT_NODE_CAPACITY, type MarketRecord, type NodeRecord, type NodeState } from '@ocg/contracts';
import { isAddress } from '@ocg/auth';
import { LRUCache } from 'lru-cache';
import { NotFoundError, type ServiceClient } from '@ocg/http';

/** What a claim needs of a registered node. */
export interface NodeStanding {
  market: string;
  state: NodeState;
  capacity: number;
}

/**
 * Markets from host-manager (`GET /internal/markets/{market}`), by address or
 * name, kept briefly: a job takes the price at post time, so a price change
 * reaches new jobs within the TTL. Requests that miss the cache together
 * share one look-up (50 nodes claiming when the market's entry has just
 * expired ask host-manager once, not 50 times).
 */
export class MarketsClient {
  private readonly cache: LRUCache<string, MarketRecord>;
  private readonly nodeMarkets: LRUCache<string, NodeStanding>;
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(
    private readonly service: ServiceClient,
    ttlMs: number,
    now: () => number = Date.now,
  ) {
    // Least recently used out first; entries expire after the TTL (read from `now` on every get: ttlResolution 0).
    this.cache = new LRUCache({ max: 1000, ttl: ttlMs, ttlResolution: 0, perf: { now } });
    this.nodeMarkets = new LRUCache({ max: 10_000, ttl: ttlMs, ttlResolution: 0, perf: { now } });
  }

  /** A registered node's market, state and capacity (`GET /internal/nodes/{node}`), kept as briefly as markets. */
  async nodeStanding(node: string): Promise<NodeStanding | undefined> {
    const key = `node:${node}`;
    const hit = this.nodeMarkets.get(key);
    if (hit) return hit;
    return this.shared(key, () => this.lookUpStanding(key, node));
  }

  private async lookUpStanding(key: string, node: string): Promise<NodeStanding | undefined> {
    const record = await this.node(node);
    if (!record) return undefined;
    // Records from a host-manager older than node control carry neither: active, the default capacity.
    const standing: NodeStanding = { market: record.market, state: record.state ?? 'ACTIVE', capacity: record.capacity ?? DEFAULT_NODE_CAPACITY };
    // A disabled node is asked about again each time, so enabling it takes effect at its next claim.
    if (standing.state === 'ACTIVE') this.nodeMarkets.set(key, standing);
    return standing;
  }

  /** host-manager changed the node (disabled, removed): the next claim asks again. */
  forgetNode(node: string): void {
    this.nodeMarkets.delete(`node:${node}`);
    this.pending.delete(`node:${node}`); // a look-up already running may predate the change: later claims ask again
  }

  /** host-manager's record of a node, uncached (status and lastSeenAt are live); undefined when it is not registered. */
  async node(node: string): Promise<NodeRecord | undefined> {
    const res = await this.service.request<NodeRecord>({ method: 'GET', path: `/internal/nodes/${encodeURIComponent(node)}` });
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw this.service.unavailable(`status ${res.status} looking up node ${node}`);
    return res.body;
  }

  async resolve(ref: string): Promise<MarketRecord> {
    const key = cacheKey(ref);
    const hit = this.cache.get(key);
    if (hit) return hit;
    return this.shared(key, () => this.lookUpMarket(key, ref));
  }

  /** One look-up of `key` at a time: callers that come while it runs get its answer (or its error). */
  private shared<T>(key: string, lookUp: () => Promise<T>): Promise<T> {
    const running = this.pending.get(key) as Promise<T> | undefined;
    if (running) return running;
    const started: Promise<T> = lookUp().finally(() => {
      if (this.pending.get(key) === started) this.pending.delete(key);
    });
    this.pending.set(key, started);
    return started;
  }

  private async lookUpMarket(key: string, ref: string): Promise<MarketRecord> {
    const res = await this.service.request<MarketRecord>({ method: 'GET', path: `/internal/markets/${encodeURIComponent(ref)}` });
    if (res.status === 404) throw new NotFoundError(`No market with the address or name "${ref}"`);
    if (res.status !== 200) throw this.service.unavailable(`status ${res.status} resolving market "${ref}"`);
    this.cache.set(key, res.body);
    this.cache.set(cacheKey(res.body.address), res.body);
    return res.body;
  }
}

/** Addresses are case-sensitive base58; names compare ignoring case (host-manager's rule). */
const cacheKey = (ref: string): string => (isAddress(ref) ? ref : `name:${ref.toLowerCase()}`);
