import { startClientManager, type Harness, type TestUser } from './harness';
import { CREDIT, balanceOf, expectLedgerConsistent, grant, hold, internal } from './support/credits';

describe('POST /credits/holds/{id}/release (internal)', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
    await grant(cm, user.id, 100 * CREDIT);
  });
  afterAll(() => cm.close());

  const release = (id: string, body: Record<string, unknown> = {}) => internal(cm, 'POST', `/credits/holds/${id}/release`, { userId: user.id, ...body });

  it('gives part of a hold back to available, exactly', async () => {
    const before = await balanceOf(cm, user.id);
    const { body: h } = await hold(cm, user.id, 4 * CREDIT, 'job-a');
    const res = await release(h.id, { amount: 1_250_000 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ released: 1_250_000, held: 2_750_000, status: 'open' });
    expect(await balanceOf(cm, user.id)).toEqual({ available: before.available - 2_750_000, held: before.held + 2_750_000, spent: before.spent });
    await expectLedgerConsistent(cm);
  });

  it('without an amount, releases all that is still held and closes the hold', async () => {
    const before = await balanceOf(cm, user.id);
    const { body: h } = await hold(cm, user.id, 3 * CREDIT, 'job-b');
    await internal(cm, 'POST', `/credits/holds/${h.id}/settle`, { userId: user.id, amount: CREDIT });
    const res = await release(h.id);
    expect(res.body).toMatchObject({ settled: CREDIT, released: 2 * CREDIT, held: 0, status: 'closed' });
    expect(await balanceOf(cm, user.id)).toEqual({ available: before.available - CREDIT, held: before.held, spent: before.spent + CREDIT });
    await expectLedgerConsistent(cm);
  });

  it('answers 409 for more than is held and for a closed hold', async () => {
    const { body: h } = await hold(cm, user.id, 10, 'job-c');
    expect((await release(h.id, { amount: 11 })).status).toBe(409);
    await release(h.id);
    expect((await release(h.id)).status).toBe(409);
  });

  it('answers 400 for an amount of 0 and 404 for an unknown hold', async () => {
    const { body: h } = await hold(cm, user.id, 10, 'job-d');
    expect((await release(h.id, { amount: 0 })).status).toBe(400);
    expect((await release('hld_nothing')).status).toBe(404);
  });
});
