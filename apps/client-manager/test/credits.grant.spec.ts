import { startClientManager, type Harness, type TestUser } from './harness';
import { CREDIT, balanceOf, expectLedgerConsistent } from './support/credits';
import { MEDIA_TYPES } from './support/http';

describe('POST /credits/grant', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
  });
  afterAll(() => cm.close());

  const grant = (body: unknown, key = cm.adminKey, type?: 'json' | 'text' | 'multipart') => cm.call('POST', '/credits/grant', { key, body, type });

  it('adds credits to a user named by id, and answers the new balance', async () => {
    const before = await balanceOf(cm, user.id);
    const res = await grant({ userId: user.id, amount: 2 * CREDIT, reason: 'welcome' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      transactionId: expect.stringMatching(/^ctx_/),
      amount: 2 * CREDIT,
      balance: { userId: user.id, available: before.available + 2 * CREDIT, held: 0, spent: 0 },
    });
    await expectLedgerConsistent(cm);
  });

  it('adds credits to a user named by email, in any letter case', async () => {
    const before = await balanceOf(cm, user.id);
    expect((await grant({ email: user.email.toUpperCase(), amount: 1, reason: 'one unit' })).status).toBe(200);
    expect((await balanceOf(cm, user.id)).available).toBe(before.available + 1);
  });

  it('records the grant as two entries that sum to zero, against the platform grants account', async () => {
    const { body } = await grant({ userId: user.id, amount: 5, reason: 'audit' });
    const entries = await cm.db.query('SELECT account, amount::int FROM credit_entries WHERE transaction_id = $1 ORDER BY amount', [body.transactionId]);
    expect(entries).toEqual([
      { account: 'platform:grants', amount: -5 },
      { account: `user:${user.id}:available`, amount: 5 },
    ]);
    expect((await cm.db.query('SELECT reason FROM credit_transactions WHERE id = $1', [body.transactionId]))[0].reason).toBe('audit');
  });

  it.each(MEDIA_TYPES)('accepts the body as %s', async (type) => {
    expect((await grant({ userId: user.id, amount: 10, reason: 'typed' }, cm.adminKey, type)).status).toBe(200);
  });

  it.each([
    ['neither userId nor email', { amount: 1, reason: 'r' }],
    ['both userId and email', { userId: 'usr_x', email: 'a@example.com', amount: 1, reason: 'r' }],
    ['an amount of 0', { userId: 'usr_x', amount: 0, reason: 'r' }],
    ['a fractional amount', { userId: 'usr_x', amount: 1.5, reason: 'r' }],
    ['an empty reason', { userId: 'usr_x', amount: 1, reason: '' }],
  ])('refuses %s with 400', async (_what, body) => {
    expect((await grant(body)).status).toBe(400);
  });

  it('answers 404 for an unknown user', async () => {
    expect((await grant({ userId: 'usr_nobody', amount: 1, reason: 'r' })).status).toBe(404);
  });

  it("answers 403 for a user's own key: granting takes credits:grant", async () => {
    const res = await grant({ userId: user.id, amount: 1, reason: 'self-service' }, user.key);
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('credits:grant');
  });
});
