import type { EntityManager } from 'typeorm';
import { poolRows, type NamedStatement } from '@ocg/db';
import { BaseRepository, rows } from '../base.repository';
import { JobHoldEntity } from './job-hold.entity';

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

const BEGIN: NamedStatement = {
  name: 'ocg_hold_begin',
  text: `INSERT INTO job_holds (reference, job_address, seq, user_id, amount, seconds, state) VALUES ($1, $2, $3, $4, $5, $6, 'placing')
         ON CONFLICT (reference) DO NOTHING`,
};

export class HoldRepository extends BaseRepository {
  /** Records the intent before calling client-manager, so a crash in between leaves a trace the sweeper follows. */
  async begin(h: NewHold): Promise<void> {
    // SQL: the statement the query builder made, written out: building it took several times the CPU of sending it (ADR 0075);
    // prepared on each connection once and sent on the pool without TypeORM's query runner (ADR 0080).
    await poolRows(this.db, BEGIN, [h.reference, h.job, h.seq, h.userId, String(h.amount), h.seconds]);
  }

  /**
   * An extension's hold, numbered after the job's others (reference `<job>:<seq>`). Two extensions racing for
   * one number: the loser takes the next.
   */
  async beginNext(m: EntityManager, h: Omit<NewHold, 'reference' | 'seq'>): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      try {
        // SQL: INSERT … SELECT over an aggregate: exactly one row, or the unique violation caught below.
        const [row] = await rows<{ reference: string }>(
          m,
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

  async find(reference: string): Promise<HoldRow | undefined> {
    return (await this.db.manager.findOneBy(JobHoldEntity, { reference })) ?? undefined;
  }

  /** The hold was placed; `applied` when its seconds now count. The row as it is now; nothing when the sweeper took it over meanwhile. */
  async placed(m: EntityManager, reference: string, holdId: string, applied: boolean): Promise<HoldRow | undefined> {
    const moved = await this.updating(m)
      .set({ state: 'open', hold_id: holdId, applied, updated_at: () => 'now()' })
      .where(`reference = :reference AND state = 'placing'`, { reference })
      .returning('*')
      .execute();
    return (moved.raw as HoldRow[])[0];
  }

  /** client-manager refused it (402): nothing was placed, nothing to remember. */
  async forget(reference: string): Promise<void> {
    await this.db.manager.delete(JobHoldEntity, { reference, state: 'placing' });
  }

  ofJob(job: string): Promise<HoldRow[]> {
    return this.db.manager.find(JobHoldEntity, { where: { job_address: job }, order: { seq: 'ASC' } });
  }

  /** Fixes how much of an applied hold its settlement captures (written once, so retries settle the same amount). */
  async plan(reference: string, amount: number): Promise<void> {
    await this.updating()
      .set({ settle_amount: () => 'COALESCE(settle_amount, :amount)', updated_at: () => 'now()' })
      .where('reference = :reference', { reference, amount })
      .execute();
  }

  async closed(reference: string, settled: number): Promise<void> {
    await this.db.manager.update(JobHoldEntity, { reference }, { state: 'closed', settled: String(settled), updated_at: () => 'now()' });
  }

  /** Holds that pay for nothing and no live request is finishing: placing or open, not applied, untouched for `ageSeconds`. */
  loose(ageSeconds: number, limit: number): Promise<HoldRow[]> {
    return this.db.manager
      .createQueryBuilder(JobHoldEntity, 'h')
      .where(`h.state <> 'closed' AND NOT h.applied AND h.updated_at < now() - make_interval(secs => :ageSeconds)`, { ageSeconds })
      .orderBy('h.updated_at')
      .limit(limit)
      .getMany();
  }

  /** Claims a loose hold for one sweeper (bumps its age), so two instances do not release it together. */
  async takeLoose(reference: string, ageSeconds: number): Promise<boolean> {
    const taken = await this.updating()
      .set({ updated_at: () => 'now()' })
      .where(`reference = :reference AND state <> 'closed' AND NOT applied AND updated_at < now() - make_interval(secs => :ageSeconds)`, { reference, ageSeconds })
      .returning('reference')
      .execute();
    return (taken.raw as unknown[]).length === 1;
  }

  private updating(m: EntityManager = this.db.manager) {
    return m.createQueryBuilder().update(JobHoldEntity);
  }
}
