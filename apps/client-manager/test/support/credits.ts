import type { Harness } from '../harness';
import type { Reply } from './http';

/** 1 credit in units. */
export const CREDIT = 1_000_000;

export async function grant(cm: Harness, userId: string, amount: number): Promise<void> {
  const res = await cm.call('POST', '/credits/grant', { key: cm.adminKey, body: { userId, amount, reason: 'test' } });
  if (res.status !== 200) throw new Error(`grant answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/** A call with the internal service credential, as deployment-manager makes it. */
export function internal(cm: Harness, method: string, path: string, body: unknown): Promise<Reply> {
  return cm.call(method, path, { body, headers: { 'x-ocg-internal-token': cm.internalToken } });
}

export const hold = (cm: Harness, userId: string, amount: number, reference: string): Promise<Reply> => internal(cm, 'POST', '/credits/holds', { userId, amount, reference });

export async function balanceOf(cm: Harness, userId: string): Promise<{ available: number; held: number; spent: number }> {
  const [row] = await cm.db.query('SELECT available, held, spent FROM credit_balances WHERE user_id = $1', [userId]);
  return { available: Number(row?.available ?? 0), held: Number(row?.held ?? 0), spent: Number(row?.spent ?? 0) };
}

/**
 * The books balance: every transaction sums to zero, and each user's balance
 * row equals the sum of that user's ledger accounts.
 */
export async function expectLedgerConsistent(cm: Harness): Promise<void> {
  const unbalanced = await cm.db.query('SELECT transaction_id FROM credit_entries GROUP BY transaction_id HAVING sum(amount) <> 0');
  expect(unbalanced).toEqual([]);
  const [{ total }] = await cm.db.query('SELECT coalesce(sum(amount), 0)::text AS total FROM credit_entries');
  expect(total).toBe('0');
  const drift = await cm.db.query(`
    SELECT b.user_id FROM credit_balances b
    WHERE b.available <> (SELECT coalesce(sum(amount), 0) FROM credit_entries WHERE account = 'user:' || b.user_id || ':available')
       OR b.held <> (SELECT coalesce(sum(amount), 0) FROM credit_entries WHERE account = 'user:' || b.user_id || ':held')
       OR b.spent <> (SELECT coalesce(sum(amount), 0) FROM credit_entries WHERE account = 'user:' || b.user_id || ':spent')`);
  expect(drift).toEqual([]);
}
