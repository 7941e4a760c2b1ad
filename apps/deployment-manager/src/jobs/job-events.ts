import type { JobEndpointEvent, JobEventType, JobLogEvent, JobOpEvent, JobStatusEvent, NodeOpReport } from '@ocg/contracts';
import type { Logger } from '@ocg/http';
import type { Redis } from 'ioredis';
import { redisKeys } from '@ocg/redis';
import { iso } from '../db';
import type { JobEventLog, Publication } from './job-event-log';
import type { EndpointRow, JobRow, OpRow } from './job-row';
import { toOp } from './job-views';
import type { EndpointState } from './report.repository';
import { FINAL_STATES } from './state';

type ChangedJob = Pick<JobRow, 'address' | 'status'> & Partial<JobRow>;

/** What was stored before a report, to tell what it changed. */
export interface StoredReport {
  ops: OpRow[];
  endpoints: EndpointRow[];
}

/**
 * Records what happens to a job, right after the change is committed: in the
 * job's event log (ADR 0068: what GET /jobs/{job}/events serves, on any
 * replica) and, for status changes and changed forwards (ADR 0092), on
 * `redisKeys.jobRoutes()`, so every gateway updates the job host's route at
 * once (ADR 0010). Postgres stays the truth: a lost event costs a reader a
 * state it still finds in the job's record (and the stream's own check of
 * the job's status ends it anyway).
 */
export class JobEvents {
  constructor(
    private readonly log: JobEventLog,
    private readonly redis: Pick<Redis, 'publish'>,
    private readonly url: (label: string) => string,
    private readonly logger: Logger,
  ) {}

  /** The route's message, the event and `also` (e.g. a market's wake-up) go in one Redis round trip. */
  changed(job: ChangedJob, also: Publication[] = []): void {
    this.append(job.address, 'job', statusEvent(job), FINAL_STATES.includes(job.status), [{ channel: redisKeys.jobRoutes(), message: route(job) }, ...also]);
  }

  /**
   * The ops and endpoints a node's report changed, and the log tails it carried. A changed forward is no event
   * of the job's, but gateways hold its route with the forwards in it: the route's message alone makes them look again.
   */
  reported(job: ChangedJob, stored: StoredReport, ops: NodeOpReport[], endpoints: EndpointState[]): void {
    const { address } = job;
    const before = new Map(stored.ops.map((o) => [o.op_id, JSON.stringify(toOp(o))]));
    for (const { logTail, ...op } of ops) {
      if (before.get(op.id) !== JSON.stringify(comparable(op)) || hasMore(op)) this.append(address, 'op', op satisfies JobOpEvent);
      if (logTail?.length) this.append(address, 'log', { op: op.id, lines: logTail } satisfies JobLogEvent);
    }
    const was = new Map(stored.endpoints.map((e) => [`${e.op_id}:${e.port}`, e]));
    let rerouted = false;
    for (const e of endpoints) {
      const before = was.get(`${e.op}:${e.port}`);
      rerouted ||= reach(before?.forward ?? null, before?.hosts ?? null) !== reach(e.forward, e.hosts);
      if (before?.status === e.status) continue;
      this.append(address, 'endpoint', { op: e.op, port: e.port, url: this.url(e.host), status: e.status } satisfies JobEndpointEvent);
    }
    if (rerouted) this.redis.publish(redisKeys.jobRoutes(), route(job)).catch(this.unpublished);
  }

  private append(address: string, type: JobEventType, data: unknown, final = false, also: Publication[] = []): void {
    this.log.append(address, type, data, final, also).catch(this.failed);
  }

  private readonly failed = (err: Error) => this.logger.warn({ err: err.message }, 'job event not recorded');
  private readonly unpublished = (err: Error) => this.logger.warn({ err: err.message }, 'changed forwards not published (gateways see them when their cached route expires)');
}

/** The message of `redisKeys.jobRoutes()`. */
const route = (job: ChangedJob): string => JSON.stringify({ job: job.address, status: job.status, node: job.node_address ?? null });

/** What an endpoint adds to the job's route: its forward under each of its labels; null for none. */
const reach = (forward: string | null, hosts: string[] | null): string | null => forward && `${forward} ${[...(hosts ?? [])].sort().join(',')}`;

export function statusEvent(job: ChangedJob): JobStatusEvent {
  return {
    status: job.status,
    reason: job.end_reason ?? null,
    node: job.node_address ?? null,
    durationSeconds: job.duration_seconds ?? null,
    startedAt: iso(job.started_at ?? null),
    endsAt: iso(job.ends_at ?? null),
    finishedAt: iso(job.finished_at ?? null),
  };
}

const STORED_FIELDS = ['id', 'group', 'opIndex', 'status', 'exitCode', 'reason', 'restarts', 'startedAt', 'endedAt'];

/** A reported op in the shape of a stored one (toOp), to compare them. */
function comparable(op: JobOpEvent) {
  return {
    id: op.id,
    group: op.group ?? null,
    opIndex: op.opIndex,
    status: op.status,
    exitCode: op.exitCode ?? null,
    reason: op.reason ?? null,
    restarts: op.restarts ?? 0,
    startedAt: op.startedAt ?? null,
    endedAt: op.endedAt ?? null,
  };
}

/** Fields the store does not keep (progress): such a report is always news. */
const hasMore = (op: JobOpEvent): boolean => Object.keys(op).some((k) => !STORED_FIELDS.includes(k));
