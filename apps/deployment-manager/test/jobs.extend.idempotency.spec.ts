/**
 * `POST /jobs/{job}/extend` with an Idempotency-Key: a retry (the answer was
 * lost) answers the job without a second extension or a second hold; the same
 * key with another request is a 422 with the error shape.
 */
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, type Managers } from './support/managers';
import { SignedNode } from './support/nodes';
import { runningJob } from './support/jobs';

const PRICE = 1000;
const CREDITS = 1_000_000;

describe('POST /jobs/{job}/extend with an Idempotency-Key', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let market: { address: string; name: string; joinToken: string };
  let node: SignedNode;

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    market = await m.createMarket({ pricePerSecond: PRICE, defaultDurationSeconds: 60, maxDurationSeconds: 600 });
    node = new SignedNode();
    await node.register(m, market.name, market.joinToken);
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  const extend = (user: { key: string; id: string; address: string }, job: string, seconds: number, key?: string) =>
    dm.as(user, 'POST', `/jobs/${job}/extend`, { seconds }, key === undefined ? {} : { 'idempotency-key': key });

  it('extends once when the same request is sent again, and answers the same job', async () => {
    const user = await m.newUser(CREDITS);
    const job = await runningJob(dm, user, node, market.name, 100);
    const first = await extend(user, job, 50, 'ext-1');
    const again = await extend(user, job, 50, 'ext-1');
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ durationSeconds: 150, totalPrice: 150 * PRICE, endsAt: first.body.endsAt });
    expect(await m.balance(user)).toMatchObject({ available: CREDITS - 150 * PRICE, held: 150 * PRICE });
    const holds = (await dm.db.query(`SELECT reference FROM job_holds WHERE job_address = $1 ORDER BY seq`, [job])) as unknown[];
    expect(holds).toHaveLength(2);
  });

  it('extends once when the same request is sent several times at once', async () => {
    const user = await m.newUser(CREDITS);
    const job = await runningJob(dm, user, node, market.name, 100);
    const answers = await Promise.all([1, 2, 3, 4].map(() => extend(user, job, 20, 'ext-burst')));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const now = (await dm.as(user, 'GET', `/jobs/${job}`)).body;
    expect(now).toMatchObject({ durationSeconds: 120, totalPrice: 120 * PRICE });
    expect(await m.balance(user)).toMatchObject({ available: CREDITS - 120 * PRICE, held: 120 * PRICE });
  });

  it('answers 422 with the error shape when the key was used with another request', async () => {
    const user = await m.newUser(CREDITS);
    const job = await runningJob(dm, user, node, market.name, 100);
    expect((await extend(user, job, 10, 'ext-2')).status).toBe(200);
    const other = await extend(user, job, 11, 'ext-2');
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({
      name: 'IdempotencyKeyReusedError',
      status: 422,
      code: 'CONFLICT',
      message: 'Idempotency-Key "ext-2" was already used for a different request; use a new key for a new extension',
      errors: [{ path: '/Idempotency-Key', message: 'already used with another request body' }],
    });
    expect((await dm.as(user, 'GET', `/jobs/${job}`)).body.durationSeconds).toBe(110);
  });

  it('goes on with the same hold when the first attempt died after placing it', async () => {
    const user = await m.newUser(CREDITS);
    const job = await runningJob(dm, user, node, market.name, 100);
    expect((await extend(user, job, 30, 'ext-3')).status).toBe(200);
    // As if the first attempt had stopped right after its hold was placed: not applied, not completed.
    await dm.db.query(`UPDATE jobs SET duration_seconds = duration_seconds - 30, ends_at = ends_at - interval '30 seconds' WHERE address = $1`, [job]);
    await dm.db.query(`UPDATE job_holds SET state = 'placing', applied = false, hold_id = NULL WHERE job_address = $1 AND seq = 1`, [job]);
    await dm.db.query(`UPDATE job_extend_requests SET completed = false WHERE idempotency_key = 'ext-3'`);
    const retry = await extend(user, job, 30, 'ext-3');
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ durationSeconds: 130 });
    expect(await m.balance(user)).toMatchObject({ available: CREDITS - 130 * PRICE, held: 130 * PRICE });
  });

  it('refuses a key longer than 200 characters with 400 naming the header', async () => {
    const user = await m.newUser(CREDITS);
    const job = await runningJob(dm, user, node, market.name, 100);
    const res = await extend(user, job, 10, 'k'.repeat(201));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/Idempotency-Key', message: 'must be 1 to 200 characters' }]);
  });

  it('still extends twice without a key (two requests, two extensions)', async () => {
    const user = await m.newUser(CREDITS);
    const job = await runningJob(dm, user, node, market.name, 100);
    await extend(user, job, 10);
    expect((await extend(user, job, 10)).body.durationSeconds).toBe(120);
  });
});
