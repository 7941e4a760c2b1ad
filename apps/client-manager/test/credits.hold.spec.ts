import { openApiDocument } from '@ocg/api-spec';
import { startClientManager, type Harness, type TestUser } from './harness';
import { CREDIT, balanceOf, expectLedgerConsistent, grant, hold } from './support/credits';
import { MEDIA_TYPES } from './support/http';

describe('POST /credits/holds (internal)', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
    await grant(cm, user.id, 10 * CREDIT);
  });
  afterAll(() => cm.close());

  it('moves the amount from available to held and answers the open hold', async () => {
    const res = await hold(cm, user.id, 3 * CREDIT, 'job-1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^hld_/),
      userId: user.id,
      reference: 'job-1',
      amount: 3 * CREDIT,
      settled: 0,
      released: 0,
      held: 3 * CREDIT,
      status: 'open',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await balanceOf(cm, user.id)).toEqual({ available: 7 * CREDIT, held: 3 * CREDIT, spent: 0 });
    await expectLedgerConsistent(cm);
  });

  it('is idempotent by reference: the same request returns the same hold and moves nothing more', async () => {
    const first = await hold(cm, user.id, 1 * CREDIT, 'job-2');
    const before = await balanceOf(cm, user.id);
    const again = await hold(cm, user.id, 1 * CREDIT, 'job-2');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await balanceOf(cm, user.id)).toEqual(before);
  });

  it('answers 409 when a reference is reused with another amount or for another user', async () => {
    await hold(cm, user.id, 1, 'job-3');
    const other = await cm.createUser();
    await grant(cm, other.id, CREDIT);
    expect((await hold(cm, user.id, 2, 'job-3')).status).toBe(409);
    const res = await hold(cm, other.id, 1, 'job-3');
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual([{ path: '/reference', message: 'already used by a different hold' }]);
  });

  it('answers 402 INSUFFICIENT_BALANCE naming the balance and the amount required', async () => {
    const poor = await cm.createUser();
    await grant(cm, poor.id, 1_500_000);
    const res = await hold(cm, poor.id, 2 * CREDIT, 'job-poor');
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      name: 'InsufficientBalanceError',
      code: 'INSUFFICIENT_BALANCE',
      status: 402,
      message: 'Insufficient balance: balance 1.500000 credits is less than the 2.000000 credits required',
      available: 1_500_000,
      required: 2 * CREDIT,
    });
    expect(await balanceOf(cm, poor.id)).toEqual({ available: 1_500_000, held: 0, spent: 0 });
  });

  it('lets 20 concurrent holds hold no more than the balance, and the books still balance', async () => {
    const racer = await cm.createUser();
    await grant(cm, racer.id, 5 * CREDIT);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => hold(cm, racer.id, CREDIT, `race-${i}`)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(15);
    expect(await balanceOf(cm, racer.id)).toEqual({ available: 0, held: 5 * CREDIT, spent: 0 });
    await expectLedgerConsistent(cm);
  });

  it('answers one hold to concurrent requests with one reference', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => hold(cm, user.id, 7, 'job-same')));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await cm.db.query(`SELECT count(*)::int AS n FROM credit_holds WHERE reference = 'job-same'`)).toEqual([{ n: 1 }]);
  });

  it.each(MEDIA_TYPES)('accepts the body as %s', async (type) => {
    const res = await cm.call('POST', '/credits/holds', {
      body: { userId: user.id, amount: 1, reference: `typed-${type}` },
      type,
      headers: { 'x-ocg-internal-token': cm.internalToken },
    });
    expect(res.status).toBe(200);
  });

  it('answers 404 for an unknown user and 400 for an amount of 0', async () => {
    expect((await hold(cm, 'usr_nobody', 1, 'job-x')).status).toBe(404);
    expect((await hold(cm, user.id, 0, 'job-0')).status).toBe(400);
  });

  it('answers 401 without the internal credential, also for an operator key', async () => {
    const body = { userId: user.id, amount: 1, reference: 'job-public' };
    expect((await cm.call('POST', '/credits/holds', { body })).status).toBe(401);
    expect((await cm.call('POST', '/credits/holds', { body, key: cm.adminKey })).status).toBe(401);
    expect((await cm.call('POST', '/credits/holds', { body, headers: { 'x-ocg-internal-token': 'wrong-token-of-some-length' } })).status).toBe(401);
  });

  it('is absent from the public contract, so the gateway has no route to it', () => {
    const paths = Object.keys(openApiDocument.paths);
    expect(paths.filter((p) => p.startsWith('/credits/holds'))).toEqual([]);
  });
});

describe('POST /credits/holds without INTERNAL_TOKEN configured', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager({ env: { INTERNAL_TOKEN: '' } })));
  afterAll(() => cm.close());

  it('answers 401: internal routes are closed', async () => {
    const res = await cm.call('POST', '/credits/holds', { body: { userId: 'usr_x', amount: 1, reference: 'r' }, headers: { 'x-ocg-internal-token': 'anything-at-all-here' } });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/INTERNAL_TOKEN is not configured/);
  });
});
