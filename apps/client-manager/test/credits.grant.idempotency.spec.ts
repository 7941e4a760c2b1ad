/**
 * `POST /credits/grant` with an Idempotency-Key: a retry (the answer was lost)
 * answers the same grant without granting twice; the same key with another
 * request is a 422 with the error shape.
 */
import { startClientManager, type Harness, type TestUser } from './harness';
import { CREDIT, balanceOf, expectLedgerConsistent } from './support/credits';

describe('POST /credits/grant with an Idempotency-Key', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
  });
  afterAll(() => cm.close());

  const grant = (body: unknown, key?: string) => cm.call('POST', '/credits/grant', { key: cm.adminKey, body, headers: key === undefined ? {} : { 'idempotency-key': key } });

  it('grants once when the same request is sent again, and answers the same', async () => {
    const before = await balanceOf(cm, user.id);
    const body = { userId: user.id, amount: 3 * CREDIT, reason: 'retried' };
    const first = await grant(body, 'grant-1');
    const again = await grant({ reason: 'retried', amount: 3 * CREDIT, userId: user.id }, 'grant-1'); // member order does not matter
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await balanceOf(cm, user.id)).available).toBe(before.available + 3 * CREDIT);
    await expectLedgerConsistent(cm);
  });

  it('grants once when the same request is sent several times at once', async () => {
    const before = await balanceOf(cm, user.id);
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => grant({ userId: user.id, amount: 7, reason: 'burst' }, 'grant-burst')));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.transactionId)).size).toBe(1);
    expect((await balanceOf(cm, user.id)).available).toBe(before.available + 7);
  });

  it('answers 422 with the error shape when the key was used with another request, and grants nothing', async () => {
    expect((await grant({ userId: user.id, amount: 1, reason: 'first' }, 'grant-2')).status).toBe(200);
    const before = await balanceOf(cm, user.id);
    const other = await grant({ userId: user.id, amount: 2, reason: 'first' }, 'grant-2');
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({
      name: 'IdempotencyKeyReusedError',
      status: 422,
      code: 'CONFLICT',
      message: 'Idempotency-Key "grant-2" was already used for a different request; use a new key for a new grant',
      errors: [{ path: '/Idempotency-Key', message: 'already used with another request body' }],
    });
    expect((await balanceOf(cm, user.id)).available).toBe(before.available);
  });

  it('refuses a key longer than 200 characters with 400 naming the header', async () => {
    const res = await grant({ userId: user.id, amount: 1, reason: 'long key' }, 'k'.repeat(201));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/Idempotency-Key', message: 'must be 1 to 200 characters' }]);
  });

  it('grants twice without a key (two requests, two grants)', async () => {
    const before = await balanceOf(cm, user.id);
    await grant({ userId: user.id, amount: 1, reason: 'twice' });
    await grant({ userId: user.id, amount: 1, reason: 'twice' });
    expect((await balanceOf(cm, user.id)).available).toBe(before.available + 2);
  });
});
