import type { JobPageRecord, ListMarketJobsResponse, ListMarketNodesResponse, MarketRecord } from '@ocg/contracts';

export interface PageDataOptions {
  deploymentManagerUrl: string;
  hostManagerUrl: string;
  internalToken: string;
  /** Per call; a silent service shows the unavailable page, not a hanging one. */
  timeoutMs?: number;
}

/** A service did not answer, or answered something other than 200 or 404: the caller shows 503. */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
}

/**
 * What the pages show, read through the services' internal routes with the
 * internal credential. Nothing is cached: the pages reload every few
 * seconds to follow a job, so they must show its latest state.
 */
export class PageData {
  constructor(private readonly opts: PageDataOptions) {}

  job(address: string): Promise<JobPageRecord | undefined> {
    return this.get(this.opts.deploymentManagerUrl, `/internal/jobs/${encodeURIComponent(address)}/page`);
  }

  market(ref: string): Promise<MarketRecord | undefined> {
    return this.get(this.opts.hostManagerUrl, `/internal/markets/${encodeURIComponent(ref)}`);
  }

  async nodes(market: string): Promise<ListMarketNodesResponse> {
    return (await this.get<ListMarketNodesResponse>(this.opts.hostManagerUrl, `/internal/markets/${encodeURIComponent(market)}/nodes?limit=100`)) ?? { nodes: [], total: 0 };
  }

  async runningJobs(market: string): Promise<ListMarketJobsResponse> {
    const path = `/internal/markets/${encodeURIComponent(market)}/jobs?status=RUNNING&limit=50`;
    return (await this.get<ListMarketJobsResponse>(this.opts.deploymentManagerUrl, path)) ?? { jobs: [], total: 0 };
  }

  /** The body of a 200, undefined for a 404. */
  private async get<T>(base: string, path: string): Promise<T | undefined> {
    let res: Response;
    try {
      res = await fetch(new URL(path, base), {
        headers: { 'x-ocg-internal-token': this.opts.internalToken, accept: 'application/json' },
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 5000),
      });
    } catch (err) {
      throw new UpstreamError(`${base}: no answer (${(err as Error).message})`);
    }
    if (res.status === 404) return undefined;
    if (!res.ok) throw new UpstreamError(`${base}${path.replace(/\?.*/, '')} answered ${res.status}`);
    return (await res.json()) as T;
  }
}
