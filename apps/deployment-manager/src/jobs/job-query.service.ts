import type { JobPageRecord, JobRecord, JobRouteRecord, JobState, ListJobsResponse, ListMarketJobsResponse } from '@ocg/contracts';
import { NotFoundError, ValidationError } from '@ocg/http';
import { iso } from '../db';
import type { Caller } from './caller';
import type { JobRepository } from './job.repository';
import type { JobViews, SummaryRow } from './job-views';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

/** Reading jobs. Another user's job answers exactly like one that does not exist. */
export class JobQueryService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly views: JobViews,
  ) {}

  async get(caller: Caller, address: string): Promise<JobRecord> {
    const job = await this.jobs.find(address);
    if (!job || job.user_id !== caller.userId) throw notFound(address);
    return this.view(address);
  }

  /** The full record, for callers that already checked who may see it. */
  async view(address: string): Promise<JobRecord> {
    const job = await this.jobs.find(address);
    if (!job) throw notFound(address);
    const [ops, endpoints] = await Promise.all([this.jobs.ops(address), this.jobs.endpoints(address)]);
    return this.views.record(job, ops, endpoints);
  }

  /** The record of a job this request just recorded: no ops or endpoints yet, nothing to read back. */
  recorded(job: SummaryRow): JobRecord {
    return this.views.record(job, [], []);
  }

  /** Which node serves the job, and where the gateway may reach its endpoints past the node's ingress (internal: the gateway's ingress). */
  async route(address: string): Promise<JobRouteRecord> {
    const job = await this.jobs.route(address);
    if (!job) throw notFound(address);
    return { job: job.address, status: job.status, node: job.node_address, forwards: job.forwards };
  }

  /**
   * The job page's record (internal: the gateway shows it to whoever holds
   * the job's link). `viewer` is the signed-in user, if any: the poster gets
   * the poster's view, anyone else the public one.
   */
  async page(address: string, viewer?: string): Promise<JobPageRecord> {
    const job = await this.jobs.find(address);
    if (!job) throw notFound(address);
    const [ops, endpoints] = await Promise.all([this.jobs.ops(address), this.jobs.endpoints(address)]);
    return this.views.page(job, ops, endpoints, viewer !== undefined && viewer === job.user_id);
  }

  /** A market's jobs in one status, by its address (internal: the market page). */
  async ofMarket(market: string, status: JobState = 'RUNNING', limit = DEFAULT_PAGE): Promise<ListMarketJobsResponse> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw invalid('/limit', `must be a whole number from 1 to ${MAX_PAGE}`);
    const found = await this.jobs.ofMarket(market, status, limit);
    return {
      jobs: found.map((j) => ({ address: j.address, status: j.status, startedAt: iso(j.started_at), endsAt: iso(j.ends_at) })),
      total: found.length === 0 ? 0 : Number(found[0].total),
    };
  }

  async list(caller: Caller, limit = DEFAULT_PAGE, cursor?: string): Promise<ListJobsResponse> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw invalid('/limit', `must be a whole number from 1 to ${MAX_PAGE}`);
    const rows = await this.jobs.listForUser(caller.userId, limit + 1, cursor === undefined ? undefined : decodeCursor(cursor));
    const page = rows.slice(0, limit);
    return { jobs: page.map((j) => this.views.summary(j)), nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1].seq) : null };
  }
}

export const notFound = (address: string): NotFoundError => new NotFoundError(`No job with the address ${address}`);

/** Cursors are opaque to clients: base64url of the last job's sequence number. */
const encodeCursor = (seq: string): string => Buffer.from(`j${seq}`).toString('base64url');

function decodeCursor(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^j\d{1,18}$/.test(text)) throw invalid('/cursor', 'is not a cursor from a previous page');
  return text.slice(1);
}

const invalid = (path: string, message: string) => new ValidationError(`Validation failed: ${path}: ${message}`, [{ path, message }]);
