import { ServiceClient, type ServiceRequest, type ServiceResponse } from '@ocg/http';
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
  private readonly deploymentManager: ServiceClient;
  private readonly clientManager: ServiceClient;
  private readonly hostManager: ServiceClient;

  constructor(opts: PageDataOptions) {
    const service = (name: string, baseUrl: string) => new ServiceClient({ service: name, baseUrl, internalToken: opts.internalToken, timeoutMs: opts.timeoutMs ?? 5000 });
    this.deploymentManager = service('deployment-manager', opts.deploymentManagerUrl);
    this.clientManager = service('client-manager', opts.clientManagerUrl);
    this.hostManager = service('host-manager', opts.hostManagerUrl);
  }

  /** The poster's view when `viewer` (a user id) posted the job, else the public view. */
  job(address: string, viewer?: string): Promise<JobPageRecord | undefined> {
    const query = viewer === undefined ? '' : `?viewer=${encodeURIComponent(viewer)}`;
    return this.get(this.deploymentManager, `/internal/jobs/${encodeURIComponent(address)}/page${query}`);
  }

  /** The signed-in user of a Cookie header (client-manager's validate-session), if its session is valid. */
  async viewer(cookie: string | undefined): Promise<string | undefined> {
    if (!cookie?.includes(`${SESSION_COOKIE}=`)) return undefined;
    const res = await answer<ValidateSessionResponse>(this.clientManager, { method: 'POST', path: '/auth/validate-session', body: { cookieHeader: cookie } });
    if (res.status >= 500) throw new UpstreamError(`client-manager validate-session answered ${res.status}`);
    const body = res.body ?? ({} as ValidateSessionResponse);
    return res.ok && body.valid && body.user ? body.user.id : undefined;
  }

  market(ref: string): Promise<MarketRecord | undefined> {
    return this.get(this.hostManager, `/internal/markets/${encodeURIComponent(ref)}`);
  }

  async nodes(market: string): Promise<ListMarketNodesResponse> {
    return (await this.get<ListMarketNodesResponse>(this.hostManager, `/internal/markets/${encodeURIComponent(market)}/nodes?limit=100`)) ?? { nodes: [], total: 0 };
  }

  async runningJobs(market: string): Promise<ListMarketJobsResponse> {
    const path = `/internal/markets/${encodeURIComponent(market)}/jobs?status=RUNNING&limit=50`;
    return (await this.get<ListMarketJobsResponse>(this.deploymentManager, path)) ?? { jobs: [], total: 0 };
  }

  /** The body of a 200, undefined for a 404. */
  private async get<T>(service: ServiceClient, path: string): Promise<T | undefined> {
    const res = await answer<T>(service, { path });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new UpstreamError(`${service.name}${path.replace(/\?.*/, '')} answered ${res.status}`);
    return res.body;
  }
}

/** Any answer; none (within the budget) is an UpstreamError. */
async function answer<T>(service: ServiceClient, req: ServiceRequest): Promise<ServiceResponse<T>> {
  try {
    return await service.request<T>(req);
  } catch (err) {
    throw new UpstreamError(`${service.name}: no answer (${(err as { internalDetail?: string }).internalDetail ?? (err as Error).message})`);
  }
}
