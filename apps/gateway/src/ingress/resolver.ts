/** Where a job or node host is served from, or why it is not. */
export type IngressTarget =
  | { kind: 'job'; job: string; ingressUrl: string }
  | { kind: 'node'; node: string; ingressUrl: string }
  | { kind: 'not-ready'; job: string; status: string }
  | { kind: 'unknown' };

export interface IngressResolverOptions {
  deploymentManagerUrl: string;
  hostManagerUrl: string;
  internalToken: string;
  /** How long an answer is reused; short, so a stopped job is taken down within it. */
  cacheMs: number;
  timeoutMs?: number;
}

interface Cached {
  at: number;
  target: Promise<IngressTarget>;
}

/**
 * Resolves the address of a job or node host through the internal routes of
 * deployment-manager (job → its node) and host-manager (node → its ingress
 * URL), with a short cache shared by concurrent requests.
 */
export class IngressResolver {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly opts: IngressResolverOptions) {}

  resolve(address: string): Promise<IngressTarget> {
    const now = Date.now();
    const hit = this.cache.get(address);
    if (hit && now - hit.at < this.opts.cacheMs) return hit.target;
    const target = this.lookup(address);
    this.cache.set(address, { at: now, target });
    // A failure is not remembered: the next request asks again.
    target.catch(() => this.cache.delete(address));
    if (this.cache.size > 10000) this.cache.delete(this.cache.keys().next().value as string);
    return target;
  }

  private async lookup(address: string): Promise<IngressTarget> {
    const job = await this.get<{ job: string; status: string; node: string | null }>(`${this.opts.deploymentManagerUrl}/internal/jobs/${encodeURIComponent(address)}`);
    if (job) {
      if (job.status !== 'RUNNING' || !job.node) return { kind: 'not-ready', job: job.job, status: job.status };
      const node = await this.get<{ ingressUrl: string }>(`${this.opts.hostManagerUrl}/internal/nodes/${encodeURIComponent(job.node)}`);
      return node ? { kind: 'job', job: job.job, ingressUrl: node.ingressUrl } : { kind: 'not-ready', job: job.job, status: 'NODE_UNKNOWN' };
    }
    const node = await this.get<{ address: string; ingressUrl: string }>(`${this.opts.hostManagerUrl}/internal/nodes/${encodeURIComponent(address)}`);
    return node ? { kind: 'node', node: node.address, ingressUrl: node.ingressUrl } : { kind: 'unknown' };
  }

  /** The body of a 200, undefined for a 404; anything else throws (the caller answers 503). */
  private async get<T>(url: string): Promise<T | undefined> {
    const res = await fetch(url, {
      headers: { 'x-ocg-internal-token': this.opts.internalToken, accept: 'application/json' },
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 5000),
    });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`${url.replace(/\/internal\/.*/, '')} answered ${res.status}`);
    return (await res.json()) as T;
  }
}
