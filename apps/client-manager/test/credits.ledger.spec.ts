/**
 * The double-entry arithmetic itself: which accounts each money operation
 * writes, the refusals of `post`, the balance row created on first use, and
 * amounts written as credits.
 */
import { LedgerRepository } from '../src/credits/ledger.repository';
import { formatCredits } from '../src/credits/credit-format';
import { startClientManager, type Harness, type TestUser } from './harness';
import { CREDIT, balanceOf, grant, hold, internal } from './support/credits';

describe('the credits ledger', () => {
  let cm: Harness;
  let user: TestUser;
  let ledger: LedgerRepository;
  beforeAll(async () => {
    cm = await startClientManager();
    ledger = new LedgerRepository(cm.db);
    user = await cm.createUser();
    await grant(cm, user.id, 100 * CREDIT);
  });
  afterAll(() => cm.close());

  /** The entries of the one transaction of `kind` on the hold, as {account: amount}. */
  async function entriesOf(holdId: string, kind: string): Promise<Record<string, number>> {
    const rows = await cm.db.query(
      `SELECT e.account, e.amount::bigint::text AS amount FROM credit_entries e JOIN credit_transactions t ON t.id = e.transaction_id
       WHERE t.hold_id = $1 AND t.kind = $2`,
      [holdId, kind],
    );
    return Object.fromEntries(rows.map((r: { account: string; amount: string }) => [r.account.replace(`user:${user.id}:`, ''), Number(r.amount)]));
  }

  it('writes a hold as available to held, and nothing else', async () => {
    const { body: h } = await hold(cm, user.id, 3 * CREDIT, 'ledger-hold');
    expect(await entriesOf(h.id, 'hold')).toEqual({ available: -3 * CREDIT, held: 3 * CREDIT });
  });

  it('writes a partial settle as held to spent, with no zero entry for available', async () => {
    const { body: h } = await hold(cm, user.id, 5 * CREDIT, 'ledger-settle');
    await internal(cm, 'POST', `/credits/holds/${h.id}/settle`, { userId: user.id, amount: 2 * CREDIT });
    expect(await entriesOf(h.id, 'settle')).toEqual({ held: -2 * CREDIT, spent: 2 * CREDIT });
  });

  it('writes a final settle as held to spent and the rest back to available', async () => {
    const { body: h } = await hold(cm, user.id, 5 * CREDIT, 'ledger-final');
    await internal(cm, 'POST', `/credits/holds/${h.id}/settle`, { userId: user.id, amount: 2 * CREDIT, final: true });
    expect(await entriesOf(h.id, 'settle')).toEqual({ held: -5 * CREDIT, spent: 2 * CREDIT, available: 3 * CREDIT });
  });

  it('writes a release as held back to available', async () => {
    const { body: h } = await hold(cm, user.id, 5 * CREDIT, 'ledger-release');
    await internal(cm, 'POST', `/credits/holds/${h.id}/release`, { userId: user.id, amount: CREDIT });
    expect(await entriesOf(h.id, 'release')).toEqual({ held: -CREDIT, available: CREDIT });
  });

  it('refuses to post a transaction that does not balance, or moves nothing', async () => {
    const before = await balanceOf(cm, user.id);
    await expect(cm.db.transaction((m) => ledger.post(m, { kind: 'settle', userId: user.id, moves: { held: -5, spent: 4 } }))).rejects.toThrow(
      `settle of ${user.id} does not balance (-1)`,
    );
    await expect(cm.db.transaction((m) => ledger.post(m, { kind: 'release', userId: user.id, moves: { held: 0, available: 0 } }))).rejects.toThrow(
      `release of ${user.id} moves nothing`,
    );
    expect(await balanceOf(cm, user.id)).toEqual(before);
  });

  it('posts a grant against the platform account, for the net of the moves', async () => {
    const other = await cm.createUser();
    const id = await cm.db.transaction(async (m) => {
      await ledger.lockBalance(m, other.id);
      return ledger.post(m, { kind: 'grant', userId: other.id, reason: 'direct', moves: { available: 7, held: 0 } });
    });
    const rows = await cm.db.query('SELECT account, amount::int AS amount FROM credit_entries WHERE transaction_id = $1 ORDER BY amount', [id]);
    expect(rows).toEqual([
      { account: 'platform:grants', amount: -7 },
      { account: `user:${other.id}:available`, amount: 7 },
    ]);
    expect(await balanceOf(cm, other.id)).toEqual({ available: 7, held: 0, spent: 0 });
  });

  it('creates the balance row at the first lock, at zero', async () => {
    const fresh = await cm.createUser();
    expect(await cm.db.query('SELECT 1 FROM credit_balances WHERE user_id = $1', [fresh.id])).toEqual([]);
    expect(await cm.db.transaction((m) => ledger.lockBalance(m, fresh.id))).toEqual({ userId: fresh.id, available: 0, held: 0, spent: 0 });
    expect(await cm.db.transaction((m) => ledger.lockBalance(m, user.id))).toEqual({ userId: user.id, ...(await balanceOf(cm, user.id)) });
  });

  it('answers 402 with a zero balance written as credits, and logs the refusal', async () => {
    const poor = await cm.createUser();
    const res = await hold(cm, poor.id, 1, 'ledger-poor');
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ available: 0, required: 1, message: 'Insufficient balance: balance 0.000000 credits is less than the 0.000001 credits required' });
    const lines = cm.logs.lines() as { msg?: string; code?: string; message?: string }[];
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'request rejected', code: 'INSUFFICIENT_BALANCE', message: res.body.message }));
  });

  it('leaves other errors to the shared handler', async () => {
    const res = await hold(cm, 'usr_nobody', 1, 'ledger-nobody');
    expect(res.status).toBe(404);
    expect(res.body).not.toHaveProperty('available');
  });
});

describe('formatCredits', () => {
  it.each([
    [0, '0.000000'],
    [1, '0.000001'],
    [1_500_000, '1.500000'],
    [-1_500_000, '-1.500000'],
    [-1, '-0.000001'],
    [12_345_678_901, '12345.678901'],
    [2n ** 70n, '1180591620717411.303424'],
  ])('writes %p units as %s credits', (units, text) => {
    expect(formatCredits(units)).toBe(text);
  });
});
