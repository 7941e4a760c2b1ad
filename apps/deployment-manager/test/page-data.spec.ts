import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { definition, runOp, sleeper } from './support/definitions';
import { INTERNAL_TOKEN, startManagers, type Managers, type TestUser } from './support/managers';
import { SignedNode } from './support/nodes';
import { runningJob } from './support/jobs';

const internal = { 'x-ocg-internal-token': INTERNAL_TOKEN };
const running = { id: 'sleep', opIndex: 0, group: 'sleep', status: 'running', startedAt: new Date().toISOString() };
const lines = (n: number, text = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => ({ stream: 'stdout', text: text(i) }));

describe("the gateway's page data (internal routes)", () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let user: TestUser;
  let market: { address: string; name: string; joinToken: string };
  let node: SignedNode;

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    market = await m.createMarket({ pricePerSecond: 10 });
    user = await m.newUser(10_000_000);
    node = new SignedNode();
    await node.register(m, market.name, market.joinToken);
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  /** The poster's view by default; `viewer: null` the public one. */
  const page = (address: string, viewer: string | null = user.id) =>
    dm.as(null, 'GET', `/internal/jobs/${address}/page${viewer === null ? '' : `?viewer=${viewer}`}`, undefined, internal);
  const report = (address: string, body: object) => node.send(dm.url, `/node-jobs/${address}/report`, body);

  it('shows every op of a queued job as pending, with the internal credential only', async () => {
    const idle = await m.createMarket({ pricePerSecond: 7 }); // no node claims from it
    const posted = await dm.as(user, 'POST', '/jobs', {
      definition: definition([runOp('db', 'sleep 1'), runOp('app', 'sleep 1', { execution: { group: 'main' } })]),
      market: idle.name,
    });
    const res = await page(posted.body.address);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ address: posted.body.address, status: 'QUEUED', market: idle.address, pricePerSecond: 7, endpoints: [] });
    expect(res.body.ops).toEqual([
      expect.objectContaining({ id: 'db', opIndex: 0, group: 'db', status: 'pending', logTail: [] }),
      expect.objectContaining({ id: 'app', opIndex: 1, group: 'main', status: 'pending', logTail: [] }),
    ]);
    expect((await dm.as(user, 'GET', `/internal/jobs/${posted.body.address}/page`)).status).toBe(401);
    expect((await page('11111111111111111111111111111111')).status).toBe(404);
  });

  it('keeps the log tail a node reported until a report brings a newer one', async () => {
    const address = await runningJob(dm, user, node, market.name);
    expect((await report(address, { ops: [{ ...running, logTail: lines(2) }] })).status).toBe(200);
    expect((await report(address, { ops: [{ ...running, restarts: 1 }] })).status).toBe(200);
    expect((await page(address)).body.ops).toEqual([expect.objectContaining({ id: 'sleep', status: 'running', restarts: 1, logTail: lines(2) })]);
    await report(address, { ops: [{ ...running, logTail: [{ stream: 'stderr', text: '<b>late</b>' }] }] });
    expect((await page(address)).body.ops[0].logTail).toEqual([{ stream: 'stderr', text: '<b>late</b>' }]);
  });

  it('stores the final tail of a finish on the page, and leaves it out of the result', async () => {
    const address = await runningJob(dm, user, node, market.name);
    const finished = await node.send(dm.url, `/node-jobs/${address}/finish`, {
      status: 'completed',
      results: {},
      ops: [{ ...running, status: 'completed', exitCode: 0, logTail: lines(1) }],
    });
    expect(finished.status).toBe(200);
    expect((await page(address)).body.ops[0]).toMatchObject({ status: 'completed', logTail: lines(1) });
    expect((await page(address)).body).toMatchObject({ view: 'poster', resultCid: finished.body.resultCid });
    const result = await dm.as(user, 'GET', `/cas/${finished.body.resultCid}`);
    expect(result.body.ops[0]).not.toHaveProperty('logTail');
  });

  it("shows an op's resource fetch as its node reports it: progress to the poster, only the activity to others, none of it in the result", async () => {
    const address = await runningJob(dm, user, node, market.name);
    const progress = { resource: 's3 store.example/models/llm', target: '/models', state: 'fetching', cached: false, bytesDone: 10, bytesTotal: 40, filesDone: 1, filesTotal: 4 };
    const pending = { ...running, status: 'pending', startedAt: null };
    expect((await report(address, { ops: [{ ...pending, activity: 'fetching resources', resources: [progress] }] })).status).toBe(200);
    expect((await page(address)).body.ops[0]).toMatchObject({ status: 'pending', activity: 'fetching resources', resources: [progress] });
    const shared = (await page(address, null)).body.ops[0];
    expect(shared).toMatchObject({ activity: 'fetching resources' });
    expect(shared).not.toHaveProperty('resources');
    const done = { ...progress, state: 'ready', bytesDone: 40, filesDone: 4 };
    const finished = await node.send(dm.url, `/node-jobs/${address}/finish`, {
      status: 'completed',
      results: {},
      ops: [{ ...running, status: 'completed', exitCode: 0, activity: null, resources: [done] }],
    });
    expect((await page(address)).body.ops[0]).toMatchObject({ status: 'completed', activity: null, resources: [done] });
    const result = await dm.as(user, 'GET', `/cas/${finished.body.resultCid}`);
    expect(result.body.ops[0]).not.toHaveProperty('resources');
  });

  it('gives anyone but the poster the public view: no output, reasons or content ids', async () => {
    const address = await runningJob(dm, user, node, market.name);
    await report(address, { ops: [{ ...running, reason: 'quoting output', logTail: lines(2) }] });
    const stranger = await m.newUser();
    for (const viewer of [null, stranger.id]) {
      const res = await page(address, viewer);
      expect(res.body).toMatchObject({ view: 'public', reason: null, poster: null, definitionCid: null, resultCid: null });
      expect(res.body.ops).toEqual([expect.objectContaining({ id: 'sleep', status: 'running', reason: null, logTail: [] })]);
    }
  });

  it("gives a private op a secret host label: its node learns it, the poster's view shows it, the public view does not", async () => {
    const def = definition([runOp('site', 'sleep 60', { args: { expose: 8080 } }), runOp('admin', 'sleep 60', { args: { expose: 9090, private: true } })]);
    const posted = await dm.as(user, 'POST', '/jobs', { definition: def, market: market.name, durationSeconds: 100 });
    const claimed = await node.send(dm.url, '/node-jobs/claim', { market: market.name });
    const address = posted.body.address;
    expect(claimed.body.assignment.job).toBe(address);
    const label = claimed.body.assignment.definition.ops[1].args.private_label;
    expect(label).toMatch(/^[a-z][a-z2-7]{11}$/);
    expect(claimed.body.assignment.definition.ops[0].args.private_label).toBeUndefined();
    const host = `${address}-${label}-9090`;
    expect(host.length).toBeLessThanOrEqual(63);
    const endpoints = [
      { op: 'site', port: 8080, host: `${address}-8080`, ready: true, online: true },
      { op: 'admin', port: 9090, host, ready: true, online: true },
    ];
    expect((await report(address, { endpoints })).status).toBe(200);
    const mine = (await page(address)).body;
    expect(mine.endpoints.map((e: { url: string }) => e.url)).toEqual([`https://${address}-${label}-9090.node.test`, `https://${address}-8080.node.test`]);
    const shared = (await page(address, null)).body;
    expect(shared.endpoints.map((e: { op: string }) => e.op)).toEqual(['site']);
    expect(JSON.stringify(shared)).not.toContain(label);
  });

  it('gives a job whose only exposed ports are private no URL of its own', async () => {
    const idle = await m.createMarket({ pricePerSecond: 3 }); // no node claims from it
    const def = definition([runOp('admin', 'sleep 60', { args: { expose: 9090, private: true } })]);
    const posted = await dm.as(user, 'POST', '/jobs', { definition: def, market: idle.name, durationSeconds: 100 });
    expect(posted.body.url).toBeNull();
    const open = await dm.as(user, 'POST', '/jobs', { definition: definition([runOp('site', 'sleep 60', { args: { expose: 8080 } })]), market: idle.name, durationSeconds: 100 });
    expect(open.body.url).toBe(`https://${open.body.address}.node.test`);
  });

  it('refuses a tail of more than 20 lines or a line longer than 500 characters', async () => {
    const address = await runningJob(dm, user, node, market.name);
    const long = await report(address, { ops: [{ ...running, logTail: lines(21) }] });
    expect(long.status).toBe(400);
    const wide = await report(address, { ops: [{ ...running, logTail: lines(1, () => 'x'.repeat(501)) }] });
    expect(wide.status).toBe(400);
  });

  it("lists a market's running jobs oldest first, up to the limit, with how many there are", async () => {
    const other = await m.createMarket({ pricePerSecond: 10 });
    const otherNode = new SignedNode();
    await otherNode.register(m, other.name, other.joinToken);
    const first = await runningJob(dm, user, otherNode, other.name);
    const second = await runningJob(dm, user, otherNode, other.name);
    await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: other.name });
    const res = await dm.as(null, 'GET', `/internal/markets/${other.address}/jobs?status=RUNNING&limit=1`, undefined, internal);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jobs: [{ address: first, status: 'RUNNING', startedAt: expect.any(String), endsAt: expect.any(String) }], total: 2 });
    const all = await dm.as(null, 'GET', `/internal/markets/${other.address}/jobs`, undefined, internal);
    expect(all.body.jobs.map((j: { address: string }) => j.address)).toEqual([first, second]);
    expect((await dm.as(null, 'GET', `/internal/markets/${other.address}/jobs?status=QUEUED`, undefined, internal)).body.total).toBe(1);
  });
});
