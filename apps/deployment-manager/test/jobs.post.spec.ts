import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, type Managers, type TestUser } from './support/managers';
import { definition, runOp, sleeper } from './support/definitions';

describe('POST /jobs', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let user: TestUser;
  let market: { address: string; name: string };

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    user = await m.newUser(100_000_000);
    market = await m.createMarket({ pricePerSecond: 1000, defaultDurationSeconds: 600, maxDurationSeconds: 3600 });
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  it('queues the job and holds price per second × the market default duration', async () => {
    const before = await m.balance(user);
    const res = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'QUEUED',
      market: market.address,
      poster: user.address,
      pricePerSecond: 1000,
      durationSeconds: 600,
      totalPrice: 600_000,
      node: null,
      settlement: 'open',
    });
    expect(res.body.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    expect(res.body.definitionCid).toMatch(/^bafkrei/);
    expect(await m.balance(user)).toMatchObject({ available: before.available - 600_000, held: before.held + 600_000 });
  });

  it('takes the duration asked for, and the market by address as well as by name', async () => {
    const res = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.address, durationSeconds: 5 });
    expect(res.body).toMatchObject({ status: 'QUEUED', durationSeconds: 5, totalPrice: 5000 });
  });

  it('posts a definition uploaded to the content-addressed store, by its content id', async () => {
    const text = JSON.stringify(sleeper(), null, 2);
    const uploaded = await dm.as(user, 'POST', '/cas', { content: text });
    expect(uploaded.status).toBe(200);
    const res = await dm.as(user, 'POST', '/jobs', { definitionCid: uploaded.body.cid, market: market.name, durationSeconds: 5 });
    expect(res.status).toBe(200);
    expect(res.body.definitionCid).toBe(uploaded.body.cid);
    const stored = await dm.as(user, 'GET', `/cas/${uploaded.body.cid}`);
    expect(stored.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.stringify(stored.body, null, 2)).toBe(text);
  });

  it('refuses an invalid definition with 400 and a JSON pointer per problem', async () => {
    const bad = { version: '0.1', type: 'container', ops: [{ type: 'container/run', id: 'a', args: {} }, runOp('a', 'true')] };
    const res = await dm.as(user, 'POST', '/jobs', { definition: bad, market: market.name });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    const paths = res.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining([expect.stringMatching(/^\/definition\/ops\/0\/args/), expect.stringMatching(/^\/definition\/ops\/1\/id/)]));
  });

  it('refuses a body with both definition and definitionCid, or neither', async () => {
    const both = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), definitionCid: 'bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq', market: market.name });
    const neither = await dm.as(user, 'POST', '/jobs', { market: market.name });
    for (const res of [both, neither]) {
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('exactly one of definition and definitionCid');
    }
  });

  it('answers 404 naming a market that does not exist', async () => {
    const res = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: 'No Such Market' });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('No market with the address or name "No Such Market"');
  });

  it('refuses an op asking for a GPU on a market without GPUs, naming the op', async () => {
    const gpuJob = definition([runOp('train', 'true', { args: { gpu: true } })]);
    const res = await dm.as(user, 'POST', '/jobs', { definition: gpuJob, market: market.name });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { path: '/definition/ops/0/args/gpu', message: `op "train" asks for a GPU, but market "${market.name}" has no GPUs: post it to a GPU market` },
    ]);
  });

  it('refuses a duration beyond the market maximum', async () => {
    const res = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 3601 });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/durationSeconds', message: `3601 s is beyond the maximum duration of market "${market.name}" (3600 s)` }]);
  });

  it('answers 401 without an API key', async () => {
    const res = await dm.as(null, 'POST', '/jobs', { definition: sleeper(), market: market.name });
    expect(res.status).toBe(401);
  });

  it('creates nothing when posting fails', async () => {
    const other = await m.newUser(1_000_000);
    await dm.as(other, 'POST', '/jobs', { definition: sleeper(), market: 'No Such Market' });
    await dm.as(other, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 9999 });
    expect((await dm.as(other, 'GET', '/jobs')).body.jobs).toEqual([]);
    expect(await m.balance(other)).toMatchObject({ available: 1_000_000, held: 0 });
  });
});
