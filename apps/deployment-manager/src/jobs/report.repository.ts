import type { EntityManager } from 'typeorm';
import type { NodeOpReport } from '@ocg/contracts';
import { BaseRepository } from '../base.repository';
import { JobEndpointEntity } from './job-endpoint.entity';

export interface EndpointState {
  op: string;
  port: number;
  host: string;
  status: 'PENDING' | 'ONLINE' | 'OFFLINE';
  /** Null unless ONLINE and forwarded by the node (ADR 0092). */
  forward: string | null;
  /** Lowercase, `host`'s among them. */
  hosts: string[];
}

/** What nodes report about a job's ops and endpoints: the latest state of each, one statement per batch. */
export class ReportRepository extends BaseRepository {
  /** A report without a log tail keeps the one stored: nodes send the tail only when it grew. */
  async upsertOps(m: EntityManager, job: string, ops: NodeOpReport[]): Promise<void> {
    if (ops.length === 0) return;
    // SQL: the upsert keeps the stored log tail when the report carries none (COALESCE with EXCLUDED), which TypeORM's orUpdate cannot say.
    await m.query(
      `INSERT INTO job_ops (job_address, op_id, op_index, grp, status, exit_code, reason, restarts, started_at, ended_at, log_tail, activity, resources)
       SELECT $1, r.id, r."opIndex", r."group", r.status, r."exitCode", r.reason, COALESCE(r.restarts, 0), r."startedAt"::timestamptz, r."endedAt"::timestamptz, r."logTail", r.activity, r.resources
       FROM jsonb_to_recordset($2::jsonb) AS r(id text, "opIndex" int, "group" text, status text, "exitCode" int, reason text, restarts int, "startedAt" text, "endedAt" text, "logTail" jsonb, activity text, resources jsonb)
       ON CONFLICT (job_address, op_id) DO UPDATE SET op_index = EXCLUDED.op_index, grp = EXCLUDED.grp, status = EXCLUDED.status, exit_code = EXCLUDED.exit_code,
         reason = EXCLUDED.reason, restarts = EXCLUDED.restarts, started_at = EXCLUDED.started_at, ended_at = EXCLUDED.ended_at,
         log_tail = COALESCE(EXCLUDED.log_tail, job_ops.log_tail), activity = EXCLUDED.activity, resources = COALESCE(EXCLUDED.resources, job_ops.resources)`,
      [job, JSON.stringify(latestBy(ops, (o) => o.id))],
    );
  }

  async upsertEndpoints(job: string, endpoints: EndpointState[]): Promise<void> {
    if (endpoints.length === 0) return;
    await this.db.manager
      .createQueryBuilder()
      .insert()
      .into(JobEndpointEntity)
      .values(
        latestBy(endpoints, (e) => `${e.op}:${e.port}`).map((e) => ({
          job_address: job,
          op_id: e.op,
          port: e.port,
          host_label: e.host,
          status: e.status,
          forward: e.forward,
          hosts: e.hosts,
          updated_at: () => 'now()',
        })),
      )
      .orUpdate(['host_label', 'status', 'forward', 'hosts', 'updated_at'], ['job_address', 'op_id', 'port'])
      .updateEntity(false)
      .execute();
  }
}

/** One row per key, the last reported winning (an upsert may not touch a row twice). */
function latestBy<T>(items: T[], key: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [key(item), item])).values()];
}
