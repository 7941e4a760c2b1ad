import type { EntityManager } from 'typeorm';
import { randomId } from '@ocg/auth';

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

/**
 * Takes the user's balance row FOR UPDATE (created on first use): every money
 * transaction of one user queues here, so two holds racing cannot both spend
 * the same credits.
 */
export async function lockBalance(m: EntityManager, userId: string): Promise<Balance> {
  const select = 'SELECT available, held, spent FROM credit_balances WHERE user_id = $1 FOR UPDATE';
  let [row] = (await m.query(select, [userId])) as RawBalance[];
  // Stryker disable next-line ConditionalExpression: inserting an existing row does nothing (ON CONFLICT DO NOTHING); the check only spares the statement
  if (!row) {
    await m.query('INSERT INTO credit_balances (user_id) VALUES ($1) ON CONFLICT DO NOTHING', [userId]);
    [row] = (await m.query(select, [userId])) as RawBalance[];
  }
  return { userId, available: Number(row.available), held: Number(row.held), spent: Number(row.spent) };
}

/**
 * Writes one ledger transaction (entries summing to zero; the database checks
 * at commit) and applies it to the locked balance row. Returns the transaction id.
 */
export async function post(m: EntityManager, p: Posting): Promise<string> {
  const id = randomId('ctx');
  const entries: [string, number][] = Object.entries(p.moves)
    .filter(([, amount]) => amount !== 0)
    .map(([account, amount]) => [userAccount(p.userId, account as UserAccount), amount as number]);
  const net = entries.reduce((sum, [, amount]) => sum + amount, 0);
  // Only a grant brings credits in from outside the user's accounts.
  if (p.kind === 'grant') entries.push([GRANTS_ACCOUNT, -net]);
  else if (net !== 0) throw new Error(`${p.kind} of ${p.userId} does not balance (${net})`);
  if (entries.length === 0) throw new Error(`${p.kind} of ${p.userId} moves nothing`);
  await m.query('INSERT INTO credit_transactions (id, kind, user_id, hold_id, reason) VALUES ($1, $2, $3, $4, $5)', [id, p.kind, p.userId, p.holdId ?? null, p.reason ?? null]);
  const values = entries.map((_, i) => `($1, $${2 * i + 2}, $${2 * i + 3})`).join(', ');
  await m.query(`INSERT INTO credit_entries (transaction_id, account, amount) VALUES ${values}`, [id, ...entries.flat()]);
  await m.query('UPDATE credit_balances SET available = available + $2, held = held + $3, spent = spent + $4, updated_at = now() WHERE user_id = $1', [
    p.userId,
    p.moves.available ?? 0,
    p.moves.held ?? 0,
    p.moves.spent ?? 0,
  ]);
  return id;
}

interface RawBalance {
  available: string;
  held: string;
  spent: string;
}
