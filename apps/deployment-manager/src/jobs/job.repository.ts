import type { DataSource } from 'typeorm';
import type { ContentSeal } from '../cas/content-seal';
import { one, rows, type Queryable } from '../db';
import { exposesPublicly, withPrivateLabels } from './private-labels';
import type { EndpointRow, JobRow, NewJob, OpRow } from './job-row';
import { allowedSources, FINAL_STATES, type JobState } from './state';

/** SQL over the row for when billing stops: now, the end of the paid duration, or when the node was last heard from. */
export type BillingEnd = 'now()' | 'ends_at' | 'last_seen_at';

/**
 * The SQL of jobs. Every status change is an UPDATE guarded by
 * `status = ANY(<allowed sources>)` from state.ts, so two writers racing
 * (a node finishing, the poster stopping, the sweeper expiring) cannot both
 * move a job, and no write can skip the transition table.
 */
export class JobRepository {
  constructor(
    private readonly db: DataSource,
    /** Definitions are stored sealed (ADR 0035); readers open them with definitionOf. */
    private readonly seal: ContentSeal,
  ) {}

  /** The job's normalized definition, opened. */
  definitionOf(job: Pick<JobRow, 'address' | 'definition'>): Record<string, unknown> {
    return this.seal.openDefinition(job.address, job.definition);
  }

  async insert(q: Queryable, j: NewJob): Promise<boolean> {
    const inserted = await rows(
      q,
      `INSERT INTO jobs (address, address_lower, user_id, poster_address, market_address, status, definition_cid, definition, exposes,
                         price_per_second, duration_seconds, max_duration_seconds)
       VALUES ($1, lower($1), $2, $3, $4, 'QUEUED', $5, $6, $7, $8, $9, $10)
       ON CONFLICT (address) DO NOTHING RETURNING address`,
      [j.address, j.userId, j.poster, j.market, j.definitionCid, JSON.stringify(this.seal.sealDefinition(j.address, withPrivateLabels(j.definition))), j.exposes && exposesPublicly(j.definition), j.pricePerSecond, j.durationSeconds, j.maxDurationSeconds],
    );
    return inserted.length === 1;
  }

  find(address: string, q: Queryable = this.db): Promise<JobRow | undefined> {
    return one<JobRow>(q, `SELECT * FROM jobs WHERE address = $1`, [address]);
  }

  /** By address ignoring case, as host names compare. */
  findByLowercase(address: string): Promise<JobRow | undefined> {
    return one<JobRow>(this.db, `SELECT * FROM jobs WHERE address_lower = lower($1)`, [address]);
  }

  /** A job known to exist (e.g. just moved by this service). */
  async get(address: string): Promise<JobRow> {
    const job = await this.find(address);
    if (!job) throw new Error(`job ${address} vanished`);
    return job;
  }

  /** Locks the row for the rest of the transaction. */
  lock(q: Queryable, address: string): Promise<JobRow | undefined> {
    return one<JobRow>(q, `SELECT * FROM jobs WHERE address = $1 FOR UPDATE`, [address]);
  }

  /** Newest first, after the job numbered `beforeSeq` (the cursor). */
  listForUser(userId: string, limit: number, beforeSeq: string | undefined): Promise<JobRow[]> {
    return rows<JobRow>(this.db, `SELECT * FROM jobs WHERE user_id = $1 AND ($2::bigint IS NULL OR seq < $2::bigint) ORDER BY seq DESC LIMIT $3`, [
      userId,
      beforeSeq ?? null,
      limit,
    ]);
  }

  /** A market's jobs in one status, oldest first, each row with the count of them all (a window over the whole match). */
  ofMarket(market: string, status: JobState, limit: number): Promise<(Pick<JobRow, 'address' | 'status' | 'started_at' | 'ends_at'> & { total: string })[]> {
    return rows(
      this.db,
      `SELECT address, status, started_at, ends_at, count(*) OVER () AS total FROM jobs WHERE market_address = $1 AND status = $2 ORDER BY seq LIMIT $3`,
      [market, status, limit],
    );
  }

  ops(address: string): Promise<OpRow[]> {
    return rows<OpRow>(this.db, `SELECT * FROM job_ops WHERE job_address = $1 ORDER BY op_index, op_id`, [address]);
  }

  endpoints(address: string): Promise<EndpointRow[]> {
    return rows<EndpointRow>(this.db, `SELECT * FROM job_endpoints WHERE job_address = $1 ORDER BY op_id, port`, [address]);
  }

  /**
   * What `node` gets from a claim: first a job it claimed more than
   * `redeliverAfterSeconds` ago but never acknowledged (the answer was
   * probably lost on the way: it is offered again, its clock restarted),
   * else the oldest queued job of the market, unless the node already runs
   * `capacity` jobs. The delay keeps a node that claims again at once from
   * getting its fresh claim back in a loop. SKIP LOCKED: concurrent claimers
   * each take a different row instead of queueing behind one, and a job goes
   * to exactly one node.
   */
  async claim(market: string, node: string, redeliverAfterSeconds: number, capacity: number): Promise<JobRow | undefined> {
    return (await this.redeliver(market, node, redeliverAfterSeconds)) ?? this.claimQueued(market, node, capacity);
  }

  /** A lock per node makes its concurrent claims count one after another, so together they never pass the capacity. */
  private claimQueued(market: string, node: string, capacity: number): Promise<JobRow | undefined> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('ocg:claim:' || $1))`, [node]);
      return one<JobRow>(
        m,
        `WITH next AS (
           SELECT address FROM jobs WHERE market_address = $1 AND status = 'QUEUED'
             AND (SELECT count(*) FROM jobs WHERE node_address = $2 AND status = 'RUNNING') < $4
           ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED
         )
         UPDATE jobs j SET status = 'RUNNING', node_address = $2, started_at = now(), last_seen_at = now(), acked_at = NULL, updated_at = now(),
                           ends_at = now() + make_interval(secs => j.duration_seconds)
         FROM next WHERE j.address = next.address AND j.status = ANY($3)
         RETURNING j.*`,
        [market, node, allowedSources('RUNNING'), capacity],
      );
    });
  }

  /** The jobs RUNNING on a node. */
  runningOn(node: string): Promise<{ address: string }[]> {
    return rows(this.db, `SELECT address FROM jobs WHERE node_address = $1 AND status = 'RUNNING' ORDER BY seq`, [node]);
  }

  /** Billing starts when the node gets the job, so a redelivered claim starts its clock again. */
  private redeliver(market: string, node: string, afterSeconds: number): Promise<JobRow | undefined> {
    return one<JobRow>(
      this.db,
      `WITH mine AS (
         SELECT address FROM jobs WHERE market_address = $1 AND node_address = $2 AND status = 'RUNNING' AND acked_at IS NULL
           AND started_at <= now() - make_interval(secs => $3)
         ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED
       )
       UPDATE jobs j SET started_at = now(), last_seen_at = now(), updated_at = now(), ends_at = now() + make_interval(secs => j.duration_seconds)
       FROM mine WHERE j.address = mine.address AND j.status = 'RUNNING' AND j.acked_at IS NULL
       RETURNING j.*`,
      [market, node, afterSeconds],
    );
  }

  /** Claims never acknowledged within `leaseSeconds` go back to the queue, for any node of the market. */
  requeueUnacknowledged(leaseSeconds: number, limit: number): Promise<JobRow[]> {
    return rows<JobRow>(
      this.db,
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
  end(q: Queryable, address: string, to: JobState, reason: string, finishedAt: BillingEnd, extra: { userId?: string; node?: string } = {}): Promise<JobRow | undefined> {
    if (!FINAL_STATES.includes(to)) throw new Error(`end() moves jobs to final states only, not ${to}`);
    return one<JobRow>(
      q,
      `UPDATE jobs SET status = $2, end_reason = $3, updated_at = now(),
                       finished_at = LEAST(now(), GREATEST(COALESCE(started_at, created_at), ${finishedAt}))
       WHERE address = $1 AND status = ANY($4) AND ($5::text IS NULL OR user_id = $5) AND ($6::text IS NULL OR node_address = $6)
       RETURNING *`,
      [address, to, reason, allowedSources(to), extra.userId ?? null, extra.node ?? null],
    );
  }

  /** Adds paid seconds to a job that has not ended; nothing when it ended or the total would pass its maximum. */
  extend(q: Queryable, address: string, seconds: number): Promise<JobRow | undefined> {
    return one<JobRow>(
      q,
      `UPDATE jobs SET duration_seconds = duration_seconds + $2, ends_at = ends_at + make_interval(secs => $2), updated_at = now()
       WHERE address = $1 AND status IN ('QUEUED', 'RUNNING') AND (ends_at IS NULL OR ends_at > now())
         AND duration_seconds + $2 <= max_duration_seconds
       RETURNING *`,
      [address, seconds],
    );
  }

  setResult(q: Queryable, address: string, resultCid: string): Promise<unknown> {
    return q.query(`UPDATE jobs SET result_cid = COALESCE(result_cid, $2), updated_at = now() WHERE address = $1`, [address, resultCid]);
  }

  /** The node was heard from about these jobs: the silence clock restarts, and a provisional claim is acknowledged. */
  touch(node: string, addresses: string[]): Promise<unknown> {
    return this.db.query(`UPDATE jobs SET last_seen_at = now(), acked_at = COALESCE(acked_at, now()) WHERE node_address = $1 AND status = 'RUNNING' AND address = ANY($2)`, [
      node,
      addresses,
    ]);
  }

  /** Of these addresses, the jobs as the control plane sees them (for a node's sync). */
  some(addresses: string[]): Promise<Pick<JobRow, 'address' | 'status' | 'node_address' | 'end_reason' | 'ends_at'>[]> {
    return rows(this.db, `SELECT address, status, node_address, end_reason, ends_at FROM jobs WHERE address = ANY($1)`, [addresses]);
  }

  /**
   * RUNNING jobs of the node that it did not list, claimed longer ago than the grace. Only acknowledged
   * ones: a node that never named a job may never have had its claim (it goes back to the queue instead).
   */
  missingFromNode(node: string, listed: string[], graceSeconds: number): Promise<{ address: string }[]> {
    return rows(
      this.db,
      `SELECT address FROM jobs WHERE node_address = $1 AND status = 'RUNNING' AND acked_at IS NOT NULL AND NOT (address = ANY($2))
         AND started_at < now() - make_interval(secs => $3)`,
      [node, listed, graceSeconds],
    );
  }

  dueToEnd(limit: number): Promise<{ address: string }[]> {
    return rows(this.db, `SELECT address FROM jobs WHERE status = 'RUNNING' AND ends_at <= now() ORDER BY ends_at LIMIT $1`, [limit]);
  }

  queuedTooLong(timeoutSeconds: number, limit: number): Promise<{ address: string }[]> {
    return rows(this.db, `SELECT address FROM jobs WHERE status = 'QUEUED' AND created_at < now() - make_interval(secs => $1) ORDER BY seq LIMIT $2`, [
      timeoutSeconds,
      limit,
    ]);
  }

  /** Nodes with a RUNNING job not heard from for `silenceSeconds`. */
  quietNodes(silenceSeconds: number): Promise<{ node_address: string }[]> {
    return rows(this.db, `SELECT DISTINCT node_address FROM jobs WHERE status = 'RUNNING' AND last_seen_at < now() - make_interval(secs => $1)`, [silenceSeconds]);
  }

  quietJobsOf(node: string, silenceSeconds: number): Promise<{ address: string }[]> {
    return rows(this.db, `SELECT address FROM jobs WHERE node_address = $1 AND status = 'RUNNING' AND last_seen_at < now() - make_interval(secs => $2)`, [node, silenceSeconds]);
  }

  /** Ended jobs whose settlement has not finished and that no sweeper is on (lease). */
  unsettled(leaseSeconds: number, limit: number): Promise<{ address: string }[]> {
    return rows(
      this.db,
      `SELECT address FROM jobs WHERE settled_at IS NULL AND finished_at IS NOT NULL
         AND (settle_attempt_at IS NULL OR settle_attempt_at < now() - make_interval(secs => $1))
       ORDER BY finished_at LIMIT $2`,
      [leaseSeconds, limit],
    );
  }

  /** Takes the settlement of one ended job for `leaseSeconds`; nothing when it is settled or another holds the lease. */
  leaseSettlement(address: string, leaseSeconds: number): Promise<JobRow | undefined> {
    return one<JobRow>(
      this.db,
      `UPDATE jobs SET settle_attempt_at = now()
       WHERE address = $1 AND settled_at IS NULL AND finished_at IS NOT NULL
         AND (settle_attempt_at IS NULL OR settle_attempt_at < now() - make_interval(secs => $2))
       RETURNING *`,
      [address, leaseSeconds],
    );
  }

  releaseLease(address: string): Promise<unknown> {
    return this.db.query(`UPDATE jobs SET settle_attempt_at = NULL WHERE address = $1 AND settled_at IS NULL`, [address]);
  }

  /** What the job costs, fixed once it ended (the same inputs give the same numbers on every retry). */
  fixCost(address: string, billedSeconds: number, cost: number): Promise<unknown> {
    return this.db.query(`UPDATE jobs SET billed_seconds = $2, cost = $3 WHERE address = $1 AND settled_at IS NULL`, [address, billedSeconds, cost]);
  }

  markSettled(address: string): Promise<unknown> {
    return this.db.query(`UPDATE jobs SET settled_at = now(), settle_attempt_at = NULL, updated_at = now() WHERE address = $1 AND settled_at IS NULL`, [address]);
  }
}
