import type { EntityManager } from 'typeorm';
import { randomId } from '@ocg/auth';
import { DataSourceRepository } from '../shared/repository';
import { CreditBalanceEntity } from './credit-balance.entity';
import { CreditEntryEntity } from './credit-entry.entity';
import { CreditTransactionEntity } from './credit-transaction.entity';

/** Balance row of one user, as locked for a money transaction. */
export interface Balance {
  userId: string;
  available: number;
  held: number;
  spent: number;
}

export type UserAccount = 'available' | 'held' | 'spent';
/** Where granted credits come from; its balance is minus everything ever granted. */
export const GRANTS_ACCOUNT = 'platform:grants';

export const userAccount = (userId: string, account: UserAccount): string => `user:${userId}:${account}`;

export interface Posting {
  kind: 'grant' | 'hold' | 'settle' | 'release';
  userId: string;
  holdId?: string;
  reason?: string;
  /** Per user account: the signed change. The other side of a grant is GRANTS_ACCOUNT. */
  moves: Partial<Record<UserAccount, number>>;
}

/** The double-entry ledger: `credit_balances`, `credit_transactions` and `credit_entries`. */
export class LedgerRepository extends DataSourceRepository {
  /** Units held over every user's balance (for the metrics; read without locks). */
  async totalHeld(): Promise<number> {
    const row = await this.db.manager.createQueryBuilder(CreditBalanceEntity, 'b').select('COALESCE(SUM(b.held), 0)', 'held').getRawOne<{ held: string }>();
    return Number(row?.held ?? 0);
  }

  /** The user's balance as it stands, unlocked; null before the first money transaction. */
  balance(userId: string): Promise<CreditBalanceEntity | null> {
    return this.db.manager.findOneBy(CreditBalanceEntity, { userId });
  }

  /**
   * Takes the user's balance row FOR UPDATE (created on first use): every money
   * transaction of one user queues here, so two holds racing cannot both spend
   * the same credits.
   */
  async lockBalance(m: EntityManager, userId: string): Promise<Balance> {
    const locked = m.createQueryBuilder(CreditBalanceEntity, 'b').where('b.userId = :userId', { userId }).setLock('pessimistic_write');
    let row = await locked.getOne();
    // Stryker disable next-line ConditionalExpression: inserting an existing row does nothing (ON CONFLICT DO NOTHING); the check only spares the statement
    if (!row) {
      await m.createQueryBuilder().insert().into(CreditBalanceEntity).values({ userId }).orIgnore().updateEntity(false).execute();
      row = await locked.getOneOrFail();
    }
    return { userId, available: row.available, held: row.held, spent: row.spent };
  }

  /**
   * Writes one ledger transaction (entries summing to zero; the database checks
   * at commit) and applies it to the locked balance row. Returns the transaction id.
   */
  async post(m: EntityManager, p: Posting): Promise<string> {
    const id = randomId('ctx');
    const entries: [string, number][] = Object.entries(p.moves)
      .filter(([, amount]) => amount !== 0)
      .map(([account, amount]) => [userAccount(p.userId, account as UserAccount), amount as number]);
    const net = entries.reduce((sum, [, amount]) => sum + amount, 0);
    // Only a grant brings credits in from outside the user's accounts.
    if (p.kind === 'grant') entries.push([GRANTS_ACCOUNT, -net]);
    else if (net !== 0) throw new Error(`${p.kind} of ${p.userId} does not balance (${net})`);
    if (entries.length === 0) throw new Error(`${p.kind} of ${p.userId} moves nothing`);
    await m.insert(CreditTransactionEntity, { id, kind: p.kind, userId: p.userId, holdId: p.holdId ?? null, reason: p.reason ?? null });
    await m.insert(
      CreditEntryEntity,
      entries.map(([account, amount]) => ({ transactionId: id, account, amount })),
    );
    // Hand-written: the arithmetic applies to the locked row's own values in one statement.
    await m.query('UPDATE credit_balances SET available = available + $2, held = held + $3, spent = spent + $4, updated_at = now() WHERE user_id = $1', [
      p.userId,
      p.moves.available ?? 0,
      p.moves.held ?? 0,
      p.moves.spent ?? 0,
    ]);
    return id;
  }
}
