import { one, rows, type Queryable } from '../db';

/**
 * A credit hold of a job, as this service knows it:
 *   placing  the call to client-manager may or may not have placed it
 *   open     placed (hold_id known); `applied` when its seconds count in the job's duration
 *   closed   settled (captured and/or released) in client-manager
 * A hold that is not applied never pays for anything: it is released.
 */
export interface HoldRow {
  reference: string;
  job_address: string;
  seq: number;
  user_id: string;
  amount: string;
  seconds: number;
  state: 'placing' | 'open' | 'closed';
  applied: boolean;
  hold_id: string | null;
  settle_amount: string | null;
  settled: string | null;
}

export interface NewHold {
  reference: string;
  job: string;
  seq: number;
  userId: string;
  amount: number;
  seconds: number;
}

export class HoldRepository {
  constructor(private readonly db: Queryable) {}

  /** Records the intent before calling client-manager, so a crash in between leaves a trace the sweeper follows. */
  async begin(h: NewHold): Promise<void> {
    await this.db.query(
      `INSERT INTO job_holds (reference, job_address, seq, user_id, amount, seconds, state) VALUES ($1, $2, $3, $4, $5, $6, 'placing')
       ON CONFLICT (reference) DO NOTHING`,
      [h.reference, h.job, h.seq, h.userId, h.amount, h.seconds],
    );
  }

  /**
   * An extension's hold, numbered after the job's others (reference `<job>:<seq>`). Two extensions racing for
   * one number: the loser takes the next.
   */
  async beginNext(h: Omit<NewHold, 'reference' | 'seq'>, q: Queryable = this.db): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      try {
        // INSERT … SELECT over an aggregate: exactly one row, or the unique violation caught below.
        const [row] = await rows<{ reference: string }>(
          q,
          `INSERT INTO job_holds (reference, job_address, seq, user_id, amount, seconds, state)
           SELECT $1 || ':' || n, $1, n, $2, $3, $4, 'placing' FROM (SELECT COALESCE(max(seq) + 1, 1) AS n FROM job_holds WHERE job_address = $1) next
           RETURNING reference`,
          [h.job, h.userId, h.amount, h.seconds],
        );
        return row.reference;
      } catch (err) {
        if ((err as { code?: string }).code !== '23505' || attempt >= 5) throw err;
      }
    }
  }

  find(reference: string): Promise<HoldRow | undefined> {
    return one<HoldRow>(this.db, `SELECT * FROM job_holds WHERE reference = $1`, [reference]);
  }

  /** The hold was placed; `applied` when its seconds now count. The row as it is now; nothing when the sweeper took it over meanwhile. */
  placed(q: Queryable, reference: string, holdId: string, applied: boolean): Promise<HoldRow | undefined> {
    return one<HoldRow>(q, `UPDATE job_holds SET state = 'open', hold_id = $2, applied = $3, updated_at = now() WHERE reference = $1 AND state = 'placing' RETURNING *`, [
      reference,
      holdId,
      applied,
    ]);
  }

  /** client-manager refused it (402): nothing was placed, nothing to remember. */
  async forget(reference: string): Promise<void> {
    await this.db.query(`DELETE FROM job_holds WHERE reference = $1 AND state = 'placing'`, [reference]);
  }

  ofJob(job: string): Promise<HoldRow[]> {
    return rows<HoldRow>(this.db, `SELECT * FROM job_holds WHERE job_address = $1 ORDER BY seq`, [job]);
  }

  /** Fixes how much of an applied hold its settlement captures (written once, so retries settle the same amount). */
  async plan(reference: string, amount: number): Promise<void> {
    await this.db.query(`UPDATE job_holds SET settle_amount = COALESCE(settle_amount, $2), updated_at = now() WHERE reference = $1`, [reference, amount]);
  }

  async closed(reference: string, settled: number): Promise<void> {
    await this.db.query(`UPDATE job_holds SET state = 'closed', settled = $2, updated_at = now() WHERE reference = $1`, [reference, settled]);
  }

  /** Holds that pay for nothing and no live request is finishing: placing or open, not applied, untouched for `ageSeconds`. */
  loose(ageSeconds: number, limit: number): Promise<HoldRow[]> {
    return rows<HoldRow>(
      this.db,
      `SELECT * FROM job_holds WHERE state <> 'closed' AND NOT applied AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT $2`,
      [ageSeconds, limit],
    );
  }

  /** Claims a loose hold for one sweeper (bumps its age), so two instances do not release it together. */
  async takeLoose(reference: string, ageSeconds: number): Promise<boolean> {
    const taken = await rows(
      this.db,
      `UPDATE job_holds SET updated_at = now() WHERE reference = $1 AND state <> 'closed' AND NOT applied AND updated_at < now() - make_interval(secs => $2) RETURNING reference`,
      [reference, ageSeconds],
    );
    return taken.length === 1;
  }
}
