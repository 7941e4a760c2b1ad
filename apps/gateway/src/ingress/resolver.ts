import { LRUCache } from 'lru-cache';
import { lookUpRoute, routeServices, type IngressTarget, type RouteLookupOptions, type RouteServices } from './route-lookup';

export type { IngressTarget } from './route-lookup';

export interface IngressResolverOptions extends RouteLookupOptions {
  /** How long a route is used before it is looked up again (in the background while it is served). */
  cacheMs: number;
  /** How long the last known route of a running job is served while the control plane cannot answer. */
  staleMs?: number;
  /** How long "no such job", "not running" and a failed lookup are remembered: at most one lookup per host per this. */
  negativeMs?: number;
  /** How long a request waits for the revalidation of a known route before the known one is used. */
  revalidateMs?: number;
  /** Routes remembered (least recently used go first). */
  maxEntries?: number;
}

/** A lookup the caller's rate limit refused (the ingress answers 429). */
export class LookupRefused extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('too many lookups of unknown hosts');
  }
}

interface Entry {
  target: IngressTarget;
  at: number;
}

interface Failure {
  at: number;
  err: Error;
}

const routable = (t: IngressTarget): boolean => t.kind === 'job' || t.kind === 'node';

/**
 * Resolves the address of a job or node host through the internal routes of
 * deployment-manager (job → its node) and host-manager (node → its ingress
 * URL). The data plane outlives the control plane (ADR 0010): a route found
 * once is served, and refreshed in the background, for up to `staleMs`
 * while those services, Postgres or Redis cannot answer; job route changes
 * arrive through Redis (`apply`), and everything else is revalidated every
 * `cacheMs`. Unknown hosts and failures are remembered for `negativeMs`, and
 * concurrent requests share one lookup, so a flood of hosts costs the
 * control plane at most one lookup per host per `negativeMs`. Every cache is
 * a bounded LRU.
 */
export class IngressResolver {
  private readonly entries: LRUCache<string, Entry>;
  private readonly failures: LRUCache<string, Failure>;
  private readonly inflight: LRUCache<string, Promise<IngressTarget>>;
  /** Each key's last change through `apply`, as a count of changes rather than a time (two in one millisecond stay ordered). */
  private readonly changes: LRUCache<string, number>;
  private changeCount = 0;
  private readonly services: RouteServices;
  private readonly listeners: Array<(job: string) => void> = [];

  constructor(private readonly opts: IngressResolverOptions) {
    const max = opts.maxEntries ?? 50_000;
    this.services = routeServices(opts);
    this.entries = new LRUCache({ max });
    this.failures = new LRUCache({ max });
    this.inflight = new LRUCache({ max });
    this.changes = new LRUCache({ max });
  }

  /** Called with a job's address (lowercased) each time its route changes (`apply`) or fails in use (`forget`). */
  onChange(listener: (job: string) => void): void {
    this.listeners.push(listener);
  }

  private get staleMs(): number {
    return this.opts.staleMs ?? 600_000;
  }

  private get negativeMs(): number {
    return this.opts.negativeMs ?? 1000;
  }

  /**
   * The route of a host's address. `mayLookUp` is asked before a lookup the
   * request would wait for of a host not known to be a job or node (a rate
   * limit per client); refusing throws LookupRefused. A lookup that fails
   * throws unless a route is known.
   */
  async resolve(address: string, mayLookUp?: () => Promise<LookupRefused | undefined>): Promise<IngressTarget> {
    const key = address.toLowerCase();
    const now = Date.now();
    const entry = this.entries.get(key);
    if (entry && routable(entry.target) && now - entry.at < this.staleMs) {
      if (now - entry.at < this.opts.cacheMs) return entry.target;
      return this.revalidate(key, entry.target);
    } else if (entry && now - entry.at < Math.max(this.negativeMs, this.opts.cacheMs)) {
      return entry.target;
    }
    const failure = this.failures.get(key);
    if (failure && now - failure.at < this.negativeMs) throw failure.err;
    const pending = this.inflight.get(key);
    if (pending) return pending;
    // Only hosts that name no known job or node count against the client: a job being waited for (queued) is not a flood.
    const refused = !entry || entry.target.kind === 'unknown' ? await mayLookUp?.() : undefined;
    if (refused) throw refused;
    return this.refresh(key);
  }

  /**
   * The route of a host's address when it is known and fresh (within `cacheMs`;
   * an unknown or not-ready address within its own time), without waiting for
   * anything: the ingress serves these at once. Undefined: ask `resolve`.
   */
  fresh(address: string): IngressTarget | undefined {
    const entry = this.entries.get(address.toLowerCase());
    if (!entry) return undefined;
    const age = Date.now() - entry.at;
    const limit = routable(entry.target) ? Math.min(this.opts.cacheMs, this.staleMs) : Math.max(this.negativeMs, this.opts.cacheMs);
    return age < limit ? entry.target : undefined;
  }

  /**
   * A route that failed in use (a job endpoint's forward refused the
   * connection): the next request looks it up again, and it stays the route
   * served while the control plane cannot answer (as after `cacheMs`).
   */
  forget(address: string): void {
    const key = address.toLowerCase();
    const entry = this.entries.get(key);
    if (entry && routable(entry.target)) entry.at = Math.min(entry.at, Date.now() - this.opts.cacheMs);
    for (const listener of this.listeners) listener(key);
  }

  /** A job's route changed (Redis pub/sub from deployment-manager): not running any more, somewhere else, or other forwards. */
  apply(change: { job: string; status: string }): void {
    const key = change.job.toLowerCase();
    this.changes.set(key, ++this.changeCount);
    for (const listener of this.listeners) listener(key);
    if (change.status === 'RUNNING') this.entries.delete(key);
    else this.entries.set(key, { target: { kind: 'not-ready', job: change.job, status: change.status }, at: Date.now() });
  }

  /**
   * A known route past `cacheMs`: looked up again, and the answer used when it
   * comes within `revalidateMs`; a control plane that fails or is slow keeps
   * the known route (the lookup finishes in the background).
   */
  private revalidate(key: string, known: IngressTarget): Promise<IngressTarget> {
    const failure = this.failures.get(key);
    if (failure && Date.now() - failure.at < this.negativeMs) return Promise.resolve(known);
    const answer = this.inflight.get(key) ?? this.refresh(key);
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<IngressTarget>((resolve) => (timer = setTimeout(() => resolve(known), this.opts.revalidateMs ?? 500)));
    return Promise.race([answer.catch(() => known), budget]).finally(() => clearTimeout(timer));
  }

  private refresh(key: string): Promise<IngressTarget> {
    const seen = this.changeCount;
    const pending: Promise<IngressTarget> = lookUpRoute(key, this.services).then(
      (target) => {
        this.failures.delete(key);
        // A pub/sub change that arrived meanwhile is newer than this answer: an end stands as `apply` left it; a
        // change while running (another node, other forwards) left no entry, and is looked up again.
        if ((this.changes.get(key) ?? 0) > seen) return this.entries.get(key)?.target ?? this.refresh(key);
        this.entries.set(key, { target, at: Date.now() });
        return target;
      },
      (err: Error) => {
        this.failures.set(key, { at: Date.now(), err });
        const known = this.entries.get(key);
        if (known && routable(known.target) && Date.now() - known.at < this.staleMs) return known.target;
        throw err;
      },
    );
    this.inflight.set(key, pending);
    // A lookup made again (above) is in flight under the key by the time this one settles.
    void pending.finally(() => this.inflight.peek(key) === pending && this.inflight.delete(key)).catch(() => undefined);
    return pending;
  }
}
