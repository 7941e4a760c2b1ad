import type { EntityManager } from 'typeorm';
import { DataSourceRepository } from '../shared/repository';
import { CreditHoldEntity } from './credit-hold.entity';

/** Every statement against `credit_holds`; callers hold the user's balance lock. */
export class CreditHoldRepository extends DataSourceRepository {
  findByReference(m: EntityManager, reference: string): Promise<CreditHoldEntity | null> {
    return m.findOneBy(CreditHoldEntity, { reference });
  }

  findForUser(m: EntityManager, id: string, userId: string): Promise<CreditHoldEntity | null> {
    return m.findOneBy(CreditHoldEntity, { id, userId });
  }

  /** A new open hold, as stored (the database's defaults and timestamps included). */
  async open(m: EntityManager, hold: Pick<CreditHoldEntity, 'id' | 'userId' | 'reference' | 'amount'>): Promise<CreditHoldEntity> {
    await m.insert(CreditHoldEntity, { ...hold, status: 'open' });
    return m.findOneByOrFail(CreditHoldEntity, { id: hold.id });
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
