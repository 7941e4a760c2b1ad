import { SESSION_COOKIE, type JobPageRecord, type ListMarketJobsResponse, type ListMarketNodesResponse, type MarketRecord, type ValidateSessionResponse } from '@ocg/contracts';

export interface PageDataOptions {
  deploymentManagerUrl: string;
  /** Validates the session cookie of a page request (the poster's view of a job page). */
  clientManagerUrl: string;
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

  /** The poster's view when `viewer` (a user id) posted the job, else the public view. */
  job(address: string, viewer?: string): Promise<JobPageRecord | undefined> {
    const query = viewer === undefined ? '' : `?viewer=${encodeURIComponent(viewer)}`;
    return this.get(this.opts.deploymentManagerUrl, `/internal/jobs/${encodeURIComponent(address)}/page${query}`);
  }

  /** The signed-in user of a Cookie header (client-manager's validate-session), if its session is valid. */
  async viewer(cookie: string | undefined): Promise<string | undefined> {
    if (!cookie?.includes(`${SESSION_COOKIE}=`)) return undefined;
    let res: Response;
    try {
      res = await fetch(new URL('/auth/validate-session', this.opts.clientManagerUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-ocg-internal-token': this.opts.internalToken },
        body: JSON.stringify({ cookieHeader: cookie }),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 5000),
      });
    } catch (err) {
      throw new UpstreamError(`client-manager: no answer (${(err as Error).message})`);
    }
    if (res.status >= 500) throw new UpstreamError(`client-manager validate-session answered ${res.status}`);
    const body = (await res.json().catch(() => ({}))) as ValidateSessionResponse;
    return res.ok && body.valid && body.user ? body.user.id : undefined;
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
