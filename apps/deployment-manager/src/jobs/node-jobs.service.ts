import type {
  ClaimJobRequest,
  ClaimJobResponse,
  FinishJobRequest,
  FinishJobResponse,
  NodeEndpointReport,
  NodeOpReport,
  ReportJobRequest,
  ReportJobResponse,
  SyncJobsRequest,
  SyncJobsResponse,
} from '@ocg/contracts';
import { ForbiddenError, NotFoundError, withSpan } from '@ocg/http';
import type { CasService } from '../cas/cas.service';
import type { MarketsClient } from '../clients/markets.client';
import { containerLimitsFor, invalid } from './definition';
import type { JobEvents, StoredReport } from './job-events';
import type { JobRepository } from './job.repository';
import type { JobRow } from './job-row';
import type { MarketWaker } from './market-waker';
import type { EndpointState, ReportRepository } from './report.repository';
import type { SettlementService } from './settlement.service';
import type { JobState } from './state';
import type { JobMetrics } from './job-metrics';

export interface NodeJobsDeps {
  jobs: JobRepository;
  reports: ReportRepository;
  cas: CasService;
  markets: MarketsClient;
  waker: MarketWaker;
  events: JobEvents;
  settlement: SettlementService;
  /** A RUNNING job its node does not list this long after the claim is lost. */
  lostJobGraceSeconds: number;
  /** A claim not acknowledged this long is offered to its node again when it claims. */
  claimRedeliverSeconds: number;
  metrics?: JobMetrics;
}

/** Re-claim at least this often while long-polling, in case a wake-up was lost. */
const WAIT_SLICE_MS = 5000;
export const DURATION_ENDED = 'duration ended';

/** What nodes do with jobs: claim, report, finish, sync. The node is the one whose key signed the request. */
export class NodeJobsService {
  constructor(private readonly d: NodeJobsDeps) {}

  async claim(node: string, body: ClaimJobRequest): Promise<ClaimJobResponse> {
    const market = await this.d.markets.resolve(body.market);
    const standing = await this.d.markets.nodeStanding(node);
    if (standing?.market !== market.address) {
      throw new ForbiddenError(standing ? `Node ${node} joined another market and may claim only its jobs` : `Node ${node} is not registered with host-manager`);
    }
    if (standing.state === 'DISABLED') throw new ForbiddenError(`Node ${node} is disabled by an operator and may claim no jobs`);
    const until = Date.now() + (body.waitSeconds ?? 0) * 1000;
    const claim = () => withSpan('job.claim', () => this.d.jobs.claim(market.address, node, this.d.claimRedeliverSeconds, standing.capacity));
    let job = await claim();
    while (!job && Date.now() < until && !this.d.waker.closed) {
      await this.d.waker.wait(market.address, Math.min(WAIT_SLICE_MS, until - Date.now()));
      job = await claim();
    }
    this.d.metrics?.claimed(market.address, job);
    if (!job) return { assignment: null };
    this.d.events.changed(job);
    const definition = this.d.jobs.definitionOf(job);
    const containerLimits = containerLimitsFor(definition, market);
    return { assignment: { job: job.address, poster: job.poster_address, definition, deadline: deadlineOf(job), containerLimits } };
  }

  /**
   * An operator took the node out (host-manager calls this): every job it
   * runs ends STOPPED now, billed until now, and settles; its next sync tells
   * it to stop them. Its standing is looked up again at its next claim.
   */
  async stopNode(node: string, reason: string): Promise<string[]> {
    this.d.markets.forgetNode(node);
    const stopped: string[] = [];
    for (const { address } of await this.d.jobs.runningOn(node)) {
      const moved = await this.d.jobs.end(this.d.jobs.manager, address, 'STOPPED', reason, 'now()', { node });
      if (!moved) continue;
      stopped.push(address);
      this.d.events.changed(moved);
      await this.d.settlement.settle(address);
    }
    return stopped;
  }

  async report(node: string, address: string, body: ReportJobRequest): Promise<ReportJobResponse> {
    const job = await this.assigned(node, address);
    const ops = (body.ops ?? []).map(cleanOp);
    const endpoints = (body.endpoints ?? []).map((e, i) => endpointState(address, e, i));
    const stored = await this.stored(address);
    await this.d.reports.upsertOps(this.d.reports.manager, address, ops);
    await this.d.reports.upsertEndpoints(address, endpoints);
    this.d.events.reported(job, stored, ops, endpoints);
    if (job.status === 'RUNNING') await this.d.jobs.touch(node, [address]); // also acknowledges the claim
    return { stop: job.status !== 'RUNNING' };
  }

  /** The node's last word: the result goes to the CAS, the job ends (unless it already did) and settles. */
  async finish(node: string, address: string, body: FinishJobRequest): Promise<FinishJobResponse> {
    const job = await this.assigned(node, address);
    const ops = body.ops.map(cleanOp);
    const { to, reason } = outcome(job, body);
    const stored = await this.stored(address);
    const result = Buffer.from(JSON.stringify({ job: address, status: body.status, reason: body.reason ?? null, ops: ops.map(withoutLogTail), results: body.results }));
    const moved = await this.d.jobs.transaction(async (m) => {
      const cid = await this.d.cas.put(m, result, job.user_id);
      await this.d.reports.upsertOps(m, address, ops);
      const row = await this.d.jobs.end(m, address, to, reason, 'ends_at', { node });
      await this.d.jobs.setResult(m, address, cid);
      return row;
    });
    this.d.events.reported(job, stored, ops, []);
    if (moved) {
      this.d.events.changed(moved);
      await this.d.settlement.settle(address);
    }
    const now = await this.d.jobs.get(address);
    return { status: now.status as FinishJobResponse['status'], resultCid: now.result_cid ?? '' };
  }

  /**
   * The node lists what it runs and learns what to stop (stopped, over,
   * or not its job) and the current deadlines (extensions). RUNNING jobs of
   * this node that it no longer lists have been lost (e.g. the machine was
   * wiped): they fail, charged until the node last reported them.
   */
  async sync(node: string, body: SyncJobsRequest): Promise<SyncJobsResponse> {
    const listed = [...new Set(body.running)];
    const known = new Map((await this.d.jobs.some(listed)).map((j) => [j.address, j]));
    const response: SyncJobsResponse = { stop: [], deadlines: [] };
    for (const address of listed) {
      const job = known.get(address);
      if (!job) response.stop.push({ job: address, reason: 'unknown job' });
      else if (job.node_address !== node) response.stop.push({ job: address, reason: 'not assigned to this node' });
      else if (job.status !== 'RUNNING') response.stop.push({ job: address, reason: job.end_reason ?? `the job is ${job.status}` });
      else response.deadlines.push({ job: address, deadline: deadlineOf(job) });
    }
    await this.d.jobs.touch(
      node,
      response.deadlines.map((d) => d.job),
    );
    await this.failLost(node, listed);
    return response;
  }

  private async failLost(node: string, listed: string[]): Promise<void> {
    for (const { address } of await this.d.jobs.missingFromNode(node, listed, this.d.lostJobGraceSeconds)) {
      const moved = await this.d.jobs.end(this.d.jobs.manager, address, 'FAILED', `node ${node} no longer runs it`, 'last_seen_at', { node });
      if (!moved) continue;
      this.d.events.changed(moved);
      await this.d.settlement.settle(address);
    }
  }

  /** The ops and endpoints as stored before a report: its events are what it changed. */
  private async stored(address: string): Promise<StoredReport> {
    const [ops, endpoints] = await Promise.all([this.d.jobs.ops(address), this.d.jobs.endpoints(address)]);
    return { ops, endpoints };
  }

  /** The job, when it was claimed by this node; otherwise the same 404 as for no job at all. */
  private async assigned(node: string, address: string): Promise<JobRow> {
    const job = await this.d.jobs.find(address);
    if (!job || job.node_address !== node) throw new NotFoundError(`No job ${address} is assigned to node ${node}`);
    return job;
  }
}

/** When a RUNNING job's paid duration is over (set by the claim). */
function deadlineOf(job: Pick<JobRow, 'address' | 'ends_at'>): number {
  if (!job.ends_at) throw new Error(`running job ${job.address} has no end`);
  return job.ends_at.getTime();
}

/**
 * The node's outcome as a job state. A job the node ended because its paid
 * duration was over reads STOPPED "duration ended", as when the sweeper ends it.
 */
function outcome(job: JobRow, body: FinishJobRequest): { to: JobState; reason: string } {
  const over = job.ends_at !== null && job.ends_at.getTime() <= Date.now() + 1000;
  if (body.status === 'completed' && over) return { to: 'STOPPED', reason: DURATION_ENDED };
  if (body.status === 'completed') return { to: 'COMPLETED', reason: body.reason ?? 'every op completed' };
  if (body.status === 'failed') return { to: 'FAILED', reason: body.reason ?? 'failed on the node' };
  return { to: 'STOPPED', reason: body.reason ?? 'stopped on the node' };
}

/** Timestamps Postgres can read, whatever the node sent. */
function cleanOp(op: NodeOpReport): NodeOpReport {
  return { ...op, group: op.group ?? null, startedAt: time(op.startedAt), endedAt: time(op.endedAt) };
}

/** The result records how ops ended; their output and fetch progress are the job page's (and the node API's), not part of it. */
function withoutLogTail({ logTail: _tail, activity: _activity, resources: _resources, ...op }: NodeOpReport): NodeOpReport {
  return op;
}

function time(text: string | null | undefined): string | null {
  if (!text) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/**
 * A node may only name hosts of this job: `<job>` or `<job>-…` (compared ignoring case, like DNS). A forward outlives no
 * readiness check: the gateway would otherwise connect past the ingress to a container that does not answer.
 */
function endpointState(job: string, e: NodeEndpointReport, i: number): EndpointState {
  const prefix = `${job.toLowerCase()}-`;
  const foreign = (label: string) => label !== job.toLowerCase() && !label.startsWith(prefix);
  const host = e.host.toLowerCase();
  const hosts = (e.hosts ?? []).map((h) => h.toLowerCase());
  const problems = [...(foreign(host) ? [`/endpoints/${i}/host`] : []), ...hosts.flatMap((h, k) => (foreign(h) ? [`/endpoints/${i}/hosts/${k}`] : []))];
  if (problems.length) throw invalid(problems.map((path) => ({ path, message: `must be the job address or start with "<job address>-"` })));
  const status = !e.ready ? 'PENDING' : e.online ? 'ONLINE' : 'OFFLINE';
  return { op: e.op, port: e.port, host: e.host, status, forward: status === 'ONLINE' ? (e.forward ?? null) : null, hosts: [...new Set([host, ...hosts])] };
}
