import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, type Managers, type TestUser } from './support/managers';
import { sleeper } from './support/definitions';

describe('POST /jobs with an Idempotency-Key', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let user: TestUser;
  let market: { address: string; name: string };

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    user = await m.newUser(10_000_000);
    market = await m.createMarket({ pricePerSecond: 1000 });
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  const body = () => ({ definition: sleeper(), market: market.name, durationSeconds: 100 });

  it('answers a retry with the first job and holds its credits once', async () => {
    const first = await dm.as(user, 'POST', '/jobs', body(), { 'Idempotency-Key': 'k-1' });
    const again = await dm.as(user, 'POST', '/jobs', body(), { 'Idempotency-Key': 'k-1' });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body.address).toBe(first.body.address);
    expect((await dm.as(user, 'GET', '/jobs')).body.jobs).toHaveLength(1);
    expect(await m.balance(user)).toMatchObject({ held: 100_000 });
  });

  it('makes one job of concurrent retries', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => dm.as(user, 'POST', '/jobs', body(), { 'Idempotency-Key': 'k-concurrent' })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.address)).size).toBe(1);
  });

  it('answers 422 for the same key with another request, and creates nothing', async () => {
    const before = await m.balance(user);
    await dm.as(user, 'POST', '/jobs', body(), { 'Idempotency-Key': 'k-2' });
    const res = await dm.as(user, 'POST', '/jobs', { ...body(), durationSeconds: 200 }, { 'Idempotency-Key': 'k-2' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ name: 'IdempotencyKeyReusedError', message: 'Idempotency-Key "k-2" was already used for a different request; use a new key for a new job' });
    expect(await m.balance(user)).toMatchObject({ held: before.held + 100_000 });
  });

  it('keeps keys per user: another user with the same key gets a job of their own', async () => {
    const other = await m.newUser(1_000_000);
    const mine = await dm.as(user, 'POST', '/jobs', body(), { 'Idempotency-Key': 'shared' });
    const theirs = await dm.as(other, 'POST', '/jobs', body(), { 'Idempotency-Key': 'shared' });
    expect(theirs.status).toBe(200);
    expect(theirs.body.address).not.toBe(mine.body.address);
  });

  it('posts a new job for each request without a key', async () => {
    const a = await dm.as(user, 'POST', '/jobs', body());
    const b = await dm.as(user, 'POST', '/jobs', body());
    expect(a.body.address).not.toBe(b.body.address);
  });
});
