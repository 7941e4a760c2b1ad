import type { EntityManager } from 'typeorm';
import { poolRows, type NamedStatement } from '@ocg/db';
import { DataSourceRepository } from '../shared/repository';
import { CreditHoldEntity } from './credit-hold.entity';

/** What placing a hold came to: see place(). */
export type PlacedHold = { outcome: 'no-user' } | { outcome: 'insufficient'; available: number } | { outcome: 'placed' | 'repeated'; hold: CreditHoldEntity };

/**
 * SQL: one function call: the lock, the lookup and the writes of a hold, one statement. Prepared on each connection once
 * and sent on the pool (ADR 0080), its columns named (a prepared statement whose result changed shape would fail).
 */
const PLACE: NamedStatement = {
  name: 'ocg_place_credit_hold',
  text: 'SELECT outcome, available, id, user_id, reference, amount, settled, released, status, created_at, updated_at FROM place_credit_hold($1, $2, $3, $4, $5)',
};

/** Every statement against `credit_holds`; callers hold the user's balance lock (place() takes it itself). */
export class CreditHoldRepository extends DataSourceRepository {
  /**
   * Places a hold of `amount` for `reference` in one round trip, under the
   * user's balance lock (place_credit_hold, migration 1760000007400): the
   * hold already recorded under the reference (`repeated`, whoever's it is),
   * else `insufficient` when it would overdraw, else the new open hold
   * `holdId` with its ledger transaction `transactionId` (`placed`).
   */
  async place(userId: string, reference: string, amount: number, holdId: string, transactionId: string): Promise<PlacedHold> {
    const [row] = await poolRows<RawHold & { outcome: PlacedHold['outcome']; available: string | null }>(this.db, PLACE, [userId, reference, amount, holdId, transactionId]);
    if (row.outcome === 'no-user') return { outcome: 'no-user' };
    if (row.outcome === 'insufficient') return { outcome: 'insufficient', available: Number(row.available) };
    return { outcome: row.outcome, hold: fromRaw(this.db.manager, row) };
  }

  findForUser(m: EntityManager, id: string, userId: string): Promise<CreditHoldEntity | null> {
    return m.findOneBy(CreditHoldEntity, { id, userId });
  }

  /** Adds to the hold's settled and released amounts; it closes when they reach its amount. */
  async apply(m: EntityManager, id: string, settled: number, released: number): Promise<CreditHoldEntity> {
    // Hand-written: the new totals and the status come from the row's own values in one statement, RETURNING the result.
    const [[row]] = (await m.query(
      `UPDATE credit_holds SET settled = settled + $2, released = released + $3, updated_at = now(),
         status = CASE WHEN settled + released + $2 + $3 = amount THEN 'closed' ELSE 'open' END
       WHERE id = $1 RETURNING *`,
      [id, settled, released],
    )) as [RawHold[], number]; // a node-pg UPDATE answers [rows, count]
    return fromRaw(m, row);
  }
}

function fromRaw(m: EntityManager, row: RawHold): CreditHoldEntity {
  return m.create(CreditHoldEntity, {
    id: row.id,
    userId: row.user_id,
    reference: row.reference,
    amount: Number(row.amount),
    settled: Number(row.settled),
    released: Number(row.released),
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

interface RawHold {
  id: string;
  user_id: string;
  reference: string;
  amount: string;
  settled: string;
  released: string;
  status: 'open' | 'closed';
  created_at: Date;
  updated_at: Date;
}
