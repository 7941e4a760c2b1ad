import type { DataSource, EntityManager } from 'typeorm';
import { poolRows, type NamedStatement } from '@ocg/db';
import type { ContentSeal } from '../cas/content-seal';
import type { SealedBlob } from '../cas/cas.service';
import { BaseRepository, rows } from '../base.repository';
import { ClaimBatches } from './claim-batches';
import { JobEndpointEntity } from './job-endpoint.entity';
import { JobOpEntity } from './job-op.entity';
import { JobEntity } from './job.entity';
import { exposesPublicly, withPrivateLabels } from './private-labels';
import type { EndpointRow, JobRow, NewJob, OpRow } from './job-row';
import { SUMMARY_COLUMNS, type SummaryRow } from './job-views';
import { allowedSources, FINAL_STATES, type JobState } from './state';

/** What a claim answers and records of the job it assigns: the assignment, its status event, the queue wait. */
const CLAIMED = [
  'address',
  'poster_address',
  'definition',
  'status',
  'node_address',
  'end_reason',
  'duration_seconds',
  'created_at',
  'started_at',
  'ends_at',
  'finished_at',
] as const satisfies readonly (keyof JobRow)[];
export type ClaimedJob = Pick<JobRow, (typeof CLAIMED)[number]>;
/** Named columns, never `*`: a prepared statement whose result changed shape (a column added) would fail until its connection closed. */
const CLAIM: NamedStatement = { name: 'ocg_claim_jobs', text: `SELECT ${CLAIMED.join(', ')} FROM claim_jobs($1, $2, $3, $4, $5)` };

/**
 * A posted job in one statement (JobRepository.record). SQL: four writes of one statement (a data-modifying WITH): the hold
 * first, the job only when it is applied, the definition's blob and reader only with the job. References are checked at
 * the statement's end. Prepared on each connection once (ADR 0080): named columns, never `*` (a prepared statement whose
 * result changed shape would fail), and only the summary's, which is what a post answers.
 */
const RECORD: NamedStatement = {
  name: 'ocg_record_job',
  text: `WITH placed AS (
     UPDATE job_holds SET state = 'open', hold_id = $11, applied = true, updated_at = now()
     WHERE $11::text IS NOT NULL AND reference = $1 AND state = 'placing'
     RETURNING reference
   ), job AS (
     INSERT INTO jobs (address, address_lower, user_id, poster_address, market_address, status, definition_cid, definition, exposes,
                       price_per_second, duration_seconds, max_duration_seconds)
     SELECT $1::text, lower($1::text), $2::text, $3::text, $4::text, 'QUEUED', $5::text, $6::jsonb, $7::boolean, $8::bigint, $9::integer, $10::integer
     WHERE $11::text IS NULL OR EXISTS (SELECT 1 FROM placed)
     ON CONFLICT (address) DO NOTHING
     RETURNING ${SUMMARY_COLUMNS.join(', ')}
   ), blob AS (
     INSERT INTO blobs (cid, sealed, size) SELECT $5::text, $12::text, $13::integer WHERE EXISTS (SELECT 1 FROM job)
     ON CONFLICT (cid) DO NOTHING
   ), reader AS (
     INSERT INTO blob_readers (cid, user_id, uploaded_at) SELECT $5::text, $2::text, NULL WHERE EXISTS (SELECT 1 FROM job)
     ON CONFLICT (cid, user_id) DO UPDATE SET uploaded_at = EXCLUDED.uploaded_at
   )
   SELECT ${SUMMARY_COLUMNS.join(', ')} FROM job`,
};

/**
 * The gateway's route of a job (by its address ignoring case), with its forwards (ADR 0092): each label of an ONLINE,
 * forwarded endpoint to its forward, only while the job is RUNNING. SQL: one round trip on the gateway's lookup path,
 * the labels unnested and aggregated where they are (TypeORM cannot say it). Prepared on each connection once (ADR 0080),
 * named columns.
 */
const ROUTE: NamedStatement = {
  name: 'ocg_job_route',
  text: `SELECT j.address, j.status, j.node_address,
     COALESCE((SELECT jsonb_object_agg(l.label, e.forward ORDER BY e.op_id, e.port)
               FROM job_endpoints e CROSS JOIN LATERAL unnest(COALESCE(e.hosts, '{}') || lower(e.host_label)) AS l(label)
               WHERE j.status = 'RUNNING' AND e.job_address = j.address AND e.status = 'ONLINE' AND e.forward IS NOT NULL), '{}') AS forwards
   FROM jobs j WHERE j.address_lower = lower($1)`,
};
export type RouteRow = Pick<JobRow, 'address' | 'status' | 'node_address'> & { forwards: Record<string, string> };

/** SQL over the row for when billing stops: now, the end of the paid duration, or when the node was last heard from. */
export type BillingEnd = 'now()' | 'ends_at' | 'last_seen_at';

/**
 * The statements of jobs (and of their ops and endpoints). Every status
 * change is an UPDATE guarded by `status IN (<allowed sources>)` from
 * state.ts, so two writers racing (a node finishing, the poster stopping,
 * the sweeper expiring) cannot both move a job, and no write can skip the
 * transition table.
 */
export class JobRepository extends BaseRepository {
  /** The claims waiting for their market's batch, by the redelivery delay they were asked with. */
  private readonly claims = new Map<number, ClaimBatches<ClaimedJob>>();

  constructor(
    db: DataSource,
    /** Definitions are stored sealed (ADR 0035); readers open them with definitionOf. */
    private readonly seal: ContentSeal,
  ) {
    super(db);
  }

  /** The job's normalized definition, opened. */
  definitionOf(job: Pick<JobRow, 'address' | 'definition'>): Record<string, unknown> {
    return this.seal.openDefinition(job.address, job.definition);
  }

  /**
   * Records a posted job in one statement: the job QUEUED, its definition
   * stored and readable by its poster and, when `holdId` pays for it, its
   * hold applied. With a hold, the job is recorded only while the hold is
   * still placing (the sweeper did not release it meanwhile), so a job and
   * its applied hold exist together or not at all. The new row's summary
   * columns; nothing when the job was not recorded (already there, or its
   * hold is gone).
   */
  async record(j: NewJob, definition: SealedBlob, holdId: string | undefined): Promise<SummaryRow | undefined> {
    const [row] = await poolRows<SummaryRow>(this.db, RECORD, [
      j.address,
      j.userId,
      j.poster,
      j.market,
      definition.cid,
      JSON.stringify(this.seal.sealDefinition(j.address, withPrivateLabels(j.definition))),
      j.exposes && exposesPublicly(j.definition),
      String(j.pricePerSecond),
      j.durationSeconds,
      j.maxDurationSeconds,
      holdId ?? null,
      definition.sealed,
      definition.size,
    ]);
    return row;
  }

  async find(address: string): Promise<JobRow | undefined> {
    return (await this.db.manager.findOneBy(JobEntity, { address })) ?? undefined;
  }

  /** By address ignoring case, as host names compare. */
  async route(address: string): Promise<RouteRow | undefined> {
    const [row] = await poolRows<RouteRow>(this.db, ROUTE, [address]);
    return row;
  }

  /** A job known to exist (e.g. just moved by this service). */
  async get(address: string): Promise<JobRow> {
    const job = await this.find(address);
    if (!job) throw new Error(`job ${address} vanished`);
    return job;
  }

  /** Locks the row for the rest of the transaction. */
  async lock(m: EntityManager, address: string): Promise<JobRow | undefined> {
    return (await m.findOne(JobEntity, { where: { address }, lock: { mode: 'pessimistic_write' } })) ?? undefined;
  }

  /** Newest first, after the job numbered `beforeSeq` (the cursor). */
  listForUser(userId: string, limit: number, beforeSeq: string | undefined): Promise<JobRow[]> {
    const q = this.jobs().where('j.user_id = :userId', { userId });
    if (beforeSeq !== undefined) q.andWhere('j.seq < :beforeSeq', { beforeSeq });
    return q.orderBy('j.seq', 'DESC').limit(limit).getMany();
  }

  /** A market's jobs in one status, oldest first, each row with the count of them all (a window over the whole match). */
  ofMarket(market: string, status: JobState, limit: number): Promise<(Pick<JobRow, 'address' | 'status' | 'started_at' | 'ends_at'> & { total: string })[]> {
    return this.jobs()
      .select('j.address', 'address')
      .addSelect('j.status', 'status')
      .addSelect('j.started_at', 'started_at')
      .addSelect('j.ends_at', 'ends_at')
      .addSelect('count(*) OVER ()', 'total')
      .where('j.market_address = :market AND j.status = :status', { market, status })
      .orderBy('j.seq')
      .limit(limit)
      .getRawMany();
  }

  /** How many jobs each market has in each status (an index-only count over jobs_market_status_idx), for the metrics. */
  countsByMarket(): Promise<{ market: string; status: JobState; count: string }[]> {
    return this.jobs()
      .select('j.market_address', 'market')
      .addSelect('j.status', 'status')
      .addSelect('count(*)', 'count')
      .groupBy('j.market_address')
      .addGroupBy('j.status')
      .getRawMany();
  }

  /** Each market's oldest queued job's age in seconds (over jobs_queue_idx), for the metrics. */
  queueAges(): Promise<{ market: string; seconds: string }[]> {
    return this.jobs()
      .select('j.market_address', 'market')
      .addSelect('EXTRACT(EPOCH FROM now() - min(j.created_at))', 'seconds')
      .where(`j.status = 'QUEUED'`)
      .groupBy('j.market_address')
      .getRawMany();
  }

  ops(address: string): Promise<OpRow[]> {
    return this.db.manager.find(JobOpEntity, { where: { job_address: address }, order: { op_index: 'ASC', op_id: 'ASC' } });
  }

  endpoints(address: string): Promise<EndpointRow[]> {
    return this.db.manager.find(JobEndpointEntity, { where: { job_address: address }, order: { op_id: 'ASC', port: 'ASC' } });
  }

  /**
   * What `node` gets from a claim: first a job it claimed more than
   * `redeliverAfterSeconds` ago but never acknowledged (the answer was
   * probably lost on the way: it is offered again, its clock restarted),
   * else the oldest queued job of the market, unless the node already runs
   * `capacity` jobs. The delay keeps a node that claims again at once from
   * getting its fresh claim back in a loop. SKIP LOCKED: concurrent claimers
   * each take a different row instead of queueing behind one, and a job goes
   * to exactly one node. Claims of one market that arrive together are
   * answered by one statement (ClaimBatches), each as if it had been alone.
   */
  claim(market: string, node: string, redeliverAfterSeconds: number, capacity: number): Promise<ClaimedJob | undefined> {
    let batches = this.claims.get(redeliverAfterSeconds);
    if (!batches) {
      // SQL: claim_jobs (migration 1760000008500): the claims of one market that arrive together in one round trip (ADR 0085):
      // the redeliveries, else the nodes' advisory locks and the SKIP LOCKED pick of one job a node under its capacity, each
      // statement on a fresh snapshot. Only the columns a claim uses come back (node-pg builds a parser per column of every
      // result). Prepared on each connection once, sent on the pool (ADR 0080).
      const sources = allowedSources('RUNNING');
      batches = new ClaimBatches<ClaimedJob>((m, nodes, capacities) => poolRows<ClaimedJob>(this.db, CLAIM, [m, nodes, capacities, redeliverAfterSeconds, sources]));
      this.claims.set(redeliverAfterSeconds, batches);
    }
    return batches.claim(market, node, capacity);
  }

  /** Claims never acknowledged within `leaseSeconds` go back to the queue, for any node of the market. */
  requeueUnacknowledged(leaseSeconds: number, limit: number): Promise<JobRow[]> {
    // SQL: a SKIP LOCKED pick, ordered, feeding the guarded UPDATE … RETURNING of one statement.
    return rows<JobRow>(
      this.db.manager,
      `WITH stale AS (
         SELECT address FROM jobs WHERE status = 'RUNNING' AND acked_at IS NULL AND started_at < now() - make_interval(secs => $1)
         ORDER BY started_at LIMIT $2 FOR UPDATE SKIP LOCKED
       )
       UPDATE jobs j SET status = 'QUEUED', node_address = NULL, started_at = NULL, ends_at = NULL, last_seen_at = NULL, updated_at = now()
       FROM stale WHERE j.address = stale.address AND j.status = ANY($3) AND j.acked_at IS NULL
       RETURNING j.*`,
      [leaseSeconds, limit, allowedSources('QUEUED')],
    );
  }

  /**
   * Ends a job: `to` must be a final state. `finishedAt` is SQL over the row
   * (e.g. `now()`, `ends_at`), the moment billing stops. Answers the row when
   * this call moved it, nothing when the job was not in a state that may move.
   */
  async end(m: EntityManager, address: string, to: JobState, reason: string, finishedAt: BillingEnd, extra: { userId?: string; node?: string } = {}): Promise<JobRow | undefined> {
    if (!FINAL_STATES.includes(to)) throw new Error(`end() moves jobs to final states only, not ${to}`);
    const q = this.moving(m, to)
      .set({ status: to, end_reason: reason, updated_at: () => 'now()', finished_at: () => `LEAST(now(), GREATEST(COALESCE(started_at, created_at), ${finishedAt}))` })
      .andWhere('address = :address', { address });
    if (extra.userId !== undefined) q.andWhere('user_id = :userId', { userId: extra.userId });
    if (extra.node !== undefined) q.andWhere('node_address = :node', { node: extra.node });
    return returned(await q.returning('*').execute());
  }

  /** Adds paid seconds to a job that has not ended; nothing when it ended or the total would pass its maximum. */
  async extend(m: EntityManager, address: string, seconds: number): Promise<JobRow | undefined> {
    const moved = await this.updating(m)
      .set({ duration_seconds: () => 'duration_seconds + :seconds', ends_at: () => 'ends_at + make_interval(secs => :seconds)', updated_at: () => 'now()' })
      .where(`address = :address AND status IN ('QUEUED', 'RUNNING') AND (ends_at IS NULL OR ends_at > now())`, { address })
      .andWhere('duration_seconds + :seconds <= max_duration_seconds', { seconds })
      .returning('*')
      .execute();
    return returned(moved);
  }

  async setResult(m: EntityManager, address: string, resultCid: string): Promise<void> {
    await this.updating(m)
      .set({ result_cid: () => 'COALESCE(result_cid, :resultCid)', updated_at: () => 'now()' })
      .where('address = :address', { address, resultCid })
      .execute();
  }

  /** The node was heard from about these jobs: the silence clock restarts, and a provisional claim is acknowledged. */
  async touch(node: string, addresses: string[]): Promise<void> {
    await this.updating()
      .set({ last_seen_at: () => 'now()', acked_at: () => 'COALESCE(acked_at, now())' })
      .where(`node_address = :node AND status = 'RUNNING' AND address = ANY(:addresses)`, { node, addresses })
      .execute();
  }

  /** Of these addresses, the jobs as the control plane sees them (for a node's sync). */
  some(addresses: string[]): Promise<Pick<JobRow, 'address' | 'status' | 'node_address' | 'end_reason' | 'ends_at'>[]> {
    return this.jobs().select(['j.address', 'j.status', 'j.node_address', 'j.end_reason', 'j.ends_at']).where('j.address = ANY(:addresses)', { addresses }).getMany();
  }

  /** The jobs RUNNING on a node. */
  runningOn(node: string): Promise<{ address: string }[]> {
    return this.addresses().where(`j.node_address = :node AND j.status = 'RUNNING'`, { node }).orderBy('j.seq').getMany();
  }

  /**
   * RUNNING jobs of the node that it did not list, claimed longer ago than the grace. Only acknowledged
   * ones: a node that never named a job may never have had its claim (it goes back to the queue instead).
   */
  missingFromNode(node: string, listed: string[], graceSeconds: number): Promise<{ address: string }[]> {
    return this.addresses()
      .where(`j.node_address = :node AND j.status = 'RUNNING' AND j.acked_at IS NOT NULL AND NOT (j.address = ANY(:listed))`, { node, listed })
      .andWhere('j.started_at < now() - make_interval(secs => :graceSeconds)', { graceSeconds })
      .getMany();
  }

  dueToEnd(limit: number): Promise<{ address: string }[]> {
    return this.addresses().where(`j.status = 'RUNNING' AND j.ends_at <= now()`).orderBy('j.ends_at').limit(limit).getMany();
  }

  queuedTooLong(timeoutSeconds: number, limit: number): Promise<{ address: string }[]> {
    return this.addresses()
      .where(`j.status = 'QUEUED' AND j.created_at < now() - make_interval(secs => :timeoutSeconds)`, { timeoutSeconds })
      .orderBy('j.seq')
      .limit(limit)
      .getMany();
  }

  /** Nodes with a RUNNING job not heard from for `silenceSeconds`. */
  quietNodes(silenceSeconds: number): Promise<{ node_address: string }[]> {
    return this.jobs()
      .select('j.node_address', 'node_address')
      .distinct()
      .where(`j.status = 'RUNNING' AND j.last_seen_at < now() - make_interval(secs => :silenceSeconds)`, { silenceSeconds })
      .getRawMany();
  }

  quietJobsOf(node: string, silenceSeconds: number): Promise<{ address: string }[]> {
    return this.addresses()
      .where(`j.node_address = :node AND j.status = 'RUNNING' AND j.last_seen_at < now() - make_interval(secs => :silenceSeconds)`, { node, silenceSeconds })
      .getMany();
  }

  /** Ended jobs whose settlement has not finished and that no sweeper is on (lease). */
  unsettled(leaseSeconds: number, limit: number): Promise<{ address: string }[]> {
    return this.addresses()
      .where('j.settled_at IS NULL AND j.finished_at IS NOT NULL')
      .andWhere('(j.settle_attempt_at IS NULL OR j.settle_attempt_at < now() - make_interval(secs => :leaseSeconds))', { leaseSeconds })
      .orderBy('j.finished_at')
      .limit(limit)
      .getMany();
  }

  /** Takes the settlement of one ended job for `leaseSeconds`; nothing when it is settled or another holds the lease. */
  async leaseSettlement(address: string, leaseSeconds: number): Promise<JobRow | undefined> {
    const leased = await this.updating()
      .set({ settle_attempt_at: () => 'now()' })
      .where('address = :address AND settled_at IS NULL AND finished_at IS NOT NULL', { address })
      .andWhere('(settle_attempt_at IS NULL OR settle_attempt_at < now() - make_interval(secs => :leaseSeconds))', { leaseSeconds })
      .returning('*')
      .execute();
    return returned(leased);
  }

  async releaseLease(address: string): Promise<void> {
    await this.updating().set({ settle_attempt_at: null }).where('address = :address AND settled_at IS NULL', { address }).execute();
  }

  /** What the job costs, fixed once it ended (the same inputs give the same numbers on every retry). */
  async fixCost(address: string, billedSeconds: number, cost: number): Promise<void> {
    await this.updating()
      .set({ billed_seconds: billedSeconds, cost: String(cost) })
      .where('address = :address AND settled_at IS NULL', { address })
      .execute();
  }

  async markSettled(address: string): Promise<void> {
    await this.updating()
      .set({ settled_at: () => 'now()', settle_attempt_at: null, updated_at: () => 'now()' })
      .where('address = :address AND settled_at IS NULL', { address })
      .execute();
  }

  /** Definitions stored before sealing existed (ADR 0035), locked for sealing; SKIP LOCKED shares them among instances starting together. */
  plaintextDefinitions(m: EntityManager, limit: number): Promise<Pick<JobRow, 'address' | 'definition'>[]> {
    return m
      .createQueryBuilder(JobEntity, 'j')
      .select(['j.address', 'j.definition'])
      .where(`jsonb_typeof(j.definition) = 'object'`)
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }

  async sealDefinition(m: EntityManager, job: Pick<JobRow, 'address' | 'definition'>): Promise<void> {
    await m.update(JobEntity, { address: job.address }, { definition: this.seal.sealDefinition(job.address, job.definition as object) });
  }

  private jobs(m: EntityManager = this.db.manager) {
    return m.createQueryBuilder(JobEntity, 'j');
  }

  private addresses() {
    return this.jobs().select('j.address');
  }

  private updating(m: EntityManager = this.db.manager) {
    return m.createQueryBuilder().update(JobEntity);
  }

  /** An UPDATE that moves a job to `to`, from the states the transition table allows only. */
  private moving(m: EntityManager, to: JobState) {
    return this.updating(m).where('status IN (:...allowed)', { allowed: allowedSources(to) });
  }
}

/** The row an UPDATE … RETURNING * moved (node-pg's shape, as JobRow says); nothing when it matched none. */
function returned(result: { raw: unknown }): JobRow | undefined {
  return (result.raw as JobRow[])[0];
}
