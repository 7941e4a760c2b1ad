import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, type Managers } from './support/managers';
import { sleeper } from './support/definitions';

describe('posting a job the balance cannot cover', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let market: { address: string; name: string };

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    market = await m.createMarket({ pricePerSecond: 1000, defaultDurationSeconds: 600 });
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  it('answers 402 at once naming the balance and the amount required', async () => {
    const user = await m.newUser(1_500_000);
    const res = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 2000 });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ name: 'InsufficientBalanceError', code: 'INSUFFICIENT_BALANCE', available: 1_500_000, required: 2_000_000 });
    expect(res.body.message).toBe('Insufficient balance: balance 1.500000 credits is less than the 2.000000 credits required');
  });

  it('leaves nothing behind: no job, no hold, no stored definition, nothing for the sweeper', async () => {
    const user = await m.newUser(1_000);
    const res = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 2 }, { 'Idempotency-Key': 'short-1' });
    expect(res.status).toBe(402);
    expect((await dm.as(user, 'GET', '/jobs')).body).toEqual({ jobs: [], nextCursor: null });
    expect(await m.balance(user)).toEqual({ userId: user.id, available: 1_000, held: 0, spent: 0 });
    expect(await dm.db.query(`SELECT count(*)::int AS n FROM job_holds WHERE user_id = $1`, [user.id])).toEqual([{ n: 0 }]);
    expect(await dm.db.query(`SELECT count(*)::int AS n FROM blob_readers WHERE user_id = $1`, [user.id])).toEqual([{ n: 0 }]);
  });

  it('accepts the same request, with the same Idempotency-Key, once the balance covers it', async () => {
    const user = await m.newUser(1_000);
    const body = { definition: sleeper(), market: market.name, durationSeconds: 2 };
    expect((await dm.as(user, 'POST', '/jobs', body, { 'Idempotency-Key': 'retry-after-topup' })).status).toBe(402);
    await fetch(`${m.clientManagerUrl}/credits/grant`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: user.id, amount: 1_000, reason: 'top up' }),
    });
    const res = await dm.as(user, 'POST', '/jobs', body, { 'Idempotency-Key': 'retry-after-topup' });
    expect(res.status).toBe(200);
    expect(await m.balance(user)).toMatchObject({ available: 0, held: 2_000 });
  });
});
