import { startClientManager, type Harness, type TestUser } from './harness';
import { CREDIT, balanceOf, expectLedgerConsistent, grant, hold, internal } from './support/credits';

describe('POST /credits/holds/{id}/settle (internal)', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
    await grant(cm, user.id, 100 * CREDIT);
  });
  afterAll(() => cm.close());

  const settle = (id: string, body: Record<string, unknown>) => internal(cm, 'POST', `/credits/holds/${id}/settle`, { userId: user.id, ...body });

  it('captures part of a hold exactly and leaves the rest held', async () => {
    const before = await balanceOf(cm, user.id);
    const { body: h } = await hold(cm, user.id, 10 * CREDIT, 'job-a');
    const res = await settle(h.id, { amount: 3_333_333 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ amount: 10 * CREDIT, settled: 3_333_333, released: 0, held: 6_666_667, status: 'open' });
    expect(await balanceOf(cm, user.id)).toEqual({ available: before.available - 10 * CREDIT, held: before.held + 6_666_667, spent: before.spent + 3_333_333 });
    await expectLedgerConsistent(cm);
  });

  it('settles in several steps and, with final, releases the remainder and closes the hold', async () => {
    const before = await balanceOf(cm, user.id);
    const { body: h } = await hold(cm, user.id, 7 * CREDIT, 'job-b');
    await settle(h.id, { amount: 1 });
    const res = await settle(h.id, { amount: 2 * CREDIT, final: true });
    expect(res.body).toMatchObject({ settled: 2 * CREDIT + 1, released: 5 * CREDIT - 1, held: 0, status: 'closed' });
    expect(await balanceOf(cm, user.id)).toEqual({ available: before.available - 2 * CREDIT - 1, held: before.held, spent: before.spent + 2 * CREDIT + 1 });
    await expectLedgerConsistent(cm);
  });

  it('closes the hold when it captures all of it', async () => {
    const { body: h } = await hold(cm, user.id, 5, 'job-c');
    expect((await settle(h.id, { amount: 5 })).body).toMatchObject({ settled: 5, held: 0, status: 'closed' });
  });

  it('with amount 0 and final, releases everything', async () => {
    const { body: h } = await hold(cm, user.id, 9, 'job-d');
    expect((await settle(h.id, { amount: 0, final: true })).body).toMatchObject({ settled: 0, released: 9, status: 'closed' });
  });

  it('answers 409 for more than the hold still holds, and for a closed hold', async () => {
    const { body: h } = await hold(cm, user.id, 10, 'job-e');
    const over = await settle(h.id, { amount: 11 });
    expect(over.status).toBe(409);
    expect(over.body.message).toMatch(/holds only 0\.000010/);
    await settle(h.id, { amount: 10 });
    expect((await settle(h.id, { amount: 0 })).status).toBe(409);
    await expectLedgerConsistent(cm);
  });

  it('answers 404 for a hold of another user', async () => {
    const other = await cm.createUser();
    await grant(cm, other.id, 10);
    const { body: h } = await hold(cm, other.id, 10, 'job-other');
    expect((await settle(h.id, { amount: 1 })).status).toBe(404);
  });

  it('answers 401 without the internal credential', async () => {
    const { body: h } = await hold(cm, user.id, 10, 'job-f');
    expect((await cm.call('POST', `/credits/holds/${h.id}/settle`, { key: cm.adminKey, body: { userId: user.id, amount: 1 } })).status).toBe(401);
  });
});
