import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, type Managers } from './support/managers';
import { SignedNode } from './support/nodes';
import { age, expectBalance, runningJob } from './support/jobs';

const PRICE = 1000;

describe('POST /jobs/{job}/extend', () => {
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

  it('holds the added seconds at once and moves the end of a running job, which its node learns at sync', async () => {
    const user = await m.newUser(1_000_000);
    const job = await runningJob(dm, user, node, market.name, 100);
    const before = (await dm.as(user, 'GET', `/jobs/${job}`)).body;
    const res = await dm.as(user, 'POST', `/jobs/${job}/extend`, { seconds: 50 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'RUNNING', durationSeconds: 150, totalPrice: 150 * PRICE });
    expect(Date.parse(res.body.endsAt) - Date.parse(before.endsAt)).toBe(50_000);
    expect(await m.balance(user)).toMatchObject({ available: 1_000_000 - 150_000, held: 150_000 });
    const sync = await node.send(dm.url, '/node-jobs/sync', { running: [job] });
    expect(sync.body).toEqual({ stop: [], deadlines: [{ job, deadline: Date.parse(res.body.endsAt) }] });
  });

  it('settles a stopped job across its holds: the seconds run from the first, then the next, the rest released', async () => {
    const user = await m.newUser(1_000_000);
    const job = await runningJob(dm, user, node, market.name, 2);
    await dm.as(user, 'POST', `/jobs/${job}/extend`, { seconds: 100 });
    await age(dm, job, 5); // it has run five seconds: more than the first hold paid for
    const stopped = (await dm.as(user, 'POST', `/jobs/${job}/stop`)).body;
    const billed = stopped.billedSeconds; // whole seconds, rounded up: 5 and the moments of this test
    expect(billed === 5 || billed === 6).toBe(true);
    expect(stopped).toMatchObject({ status: 'STOPPED', settlement: 'settled', cost: billed * PRICE });
    const holds = await dm.db.query(`SELECT seq, amount::int, settled::int, state FROM job_holds WHERE job_address = $1 ORDER BY seq`, [job]);
    expect(holds).toEqual([
      { seq: 0, amount: 2 * PRICE, settled: 2 * PRICE, state: 'closed' },
      { seq: 1, amount: 100 * PRICE, settled: (billed - 2) * PRICE, state: 'closed' },
    ]);
    await expectBalance(m, user, 1_000_000, billed * PRICE);
  });

  it('refuses a total beyond the market maximum with 400 and holds nothing', async () => {
    const user = await m.newUser(1_000_000);
    const job = await runningJob(dm, user, node, market.name, 500);
    const res = await dm.as(user, 'POST', `/jobs/${job}/extend`, { seconds: 101 });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/seconds', message: "would make the job's duration 601 s, beyond the market's maximum of 600 s" }]);
    expect(await m.balance(user)).toMatchObject({ held: 500 * PRICE });
  });

  it('answers 402 when the balance cannot cover the added seconds, and keeps the duration', async () => {
    const user = await m.newUser(150 * PRICE);
    const job = await runningJob(dm, user, node, market.name, 100);
    const res = await dm.as(user, 'POST', `/jobs/${job}/extend`, { seconds: 60 });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ available: 50 * PRICE, required: 60 * PRICE });
    expect((await dm.as(user, 'GET', `/jobs/${job}`)).body.durationSeconds).toBe(100);
    expect(await dm.db.query(`SELECT count(*)::int AS n FROM job_holds WHERE job_address = $1`, [job])).toEqual([{ n: 1 }]);
  });

  it('answers 409 for a job that has ended', async () => {
    const user = await m.newUser(1_000_000);
    const job = await runningJob(dm, user, node, market.name, 100);
    await dm.as(user, 'POST', `/jobs/${job}/stop`);
    const res = await dm.as(user, 'POST', `/jobs/${job}/extend`, { seconds: 10 });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(`Job ${job} has ended (STOPPED); it cannot be extended`);
  });
});
