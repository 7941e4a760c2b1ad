import http from 'node:http';
import Docker from 'dockerode';
import { BUSYBOX_IMAGE, ensureBusyboxImage, waitFor, type LaunchedStack } from '@ocg/testing';
import { NODE_DOMAIN, startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { definition, quickJob, runOp, sleeper, webJob } from './support/definitions';
import { INTERNAL_TOKEN, call, startManagers, type Managers, type TestUser } from './support/managers';
import { startAgent, startGateway, type AgentProcess } from './support/nodes';

const CREDITS = 50_000_000;
const PRICE = 1000;

describe('a job on a real node-agent, through the gateway', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let gateway: LaunchedStack;
  let agent: AgentProcess;
  let market: { address: string; name: string; joinToken: string };
  const docker = new Docker({ socketPath: '/var/run/docker.sock' });

  beforeAll(async () => {
    await ensureBusyboxImage();
    m = await startManagers();
    dm = await startDeploymentManager(m, { SWEEP_INTERVAL_MS: 250 });
    dm.services.sweeper.start();
    gateway = await startGateway(m, dm.url);
    market = await m.createMarket({ pricePerSecond: PRICE, defaultDurationSeconds: 600, maxDurationSeconds: 3600 });
    agent = await startAgent({ controlPlaneUrl: gateway.urls.gateway, market: market.name, joinToken: market.joinToken });
  }, 180_000);

  afterAll(async () => {
    await agent?.stop();
    await agent?.cleanup();
    await gateway?.stop();
    await dm?.close();
    await m?.stop();
  });

  const job = (user: TestUser, address: string) => dm.as(user, 'GET', `/jobs/${address}`).then((r) => r.body);
  /** The poster's view of the job page. */
  const page = (address: string, poster: TestUser) =>
    dm.as(null, 'GET', `/internal/jobs/${address}/page?viewer=${poster.id}`, undefined, { 'x-ocg-internal-token': INTERNAL_TOKEN }).then((r) => r.body);
  const until = (user: TestUser, address: string, test: (j: any) => boolean, what: string, timeoutMs = 60_000) =>
    waitFor(
      async () => {
        const j = await job(user, address);
        return test(j) ? j : undefined;
      },
      { timeoutMs, intervalMs: 200, what: `${what} (agent log: ${agent.lines.slice(-5).join(' / ')})` },
    );

  const expectSettledExactly = async (user: TestUser, settled: any) => {
    expect(settled.settlement).toBe('settled');
    expect(settled.cost).toBe(settled.billedSeconds * PRICE);
    const seconds = Math.ceil((Date.parse(settled.finishedAt) - Date.parse(settled.startedAt)) / 1000);
    expect(settled.billedSeconds).toBe(Math.min(seconds, settled.durationSeconds));
    expect(await m.balance(user)).toMatchObject({ available: CREDITS - settled.cost, held: 0, spent: settled.cost });
  };

  it('refuses to start an agent whose join token is wrong, saying why', async () => {
    const start = startAgent({ controlPlaneUrl: gateway.urls.gateway, market: market.name, joinToken: 'mjt_wrong' });
    await expect(start).rejects.toThrow(/registration refused: POST \/nodes\/register: 403 The join token is not the current one of market/);
  });

  it('runs a posted job on the node, serves its endpoint once ready, and a stop charges exactly the seconds run', async () => {
    const user = await m.newUser(CREDITS);
    const posted = await dm.as(user, 'POST', '/jobs', { definition: webJob(), market: market.name, durationSeconds: 600 });
    expect(posted.status).toBe(200);
    const address = posted.body.address;
    expect(posted.body.url).toBe(`https://${address}.${NODE_DOMAIN}`);

    const online = await until(user, address, (j) => j.endpoints.some((e: any) => e.status === 'ONLINE'), 'the endpoint to be ONLINE');
    expect(online).toMatchObject({ status: 'RUNNING', node: agent.node.address });
    expect(online.endpoints).toEqual([expect.objectContaining({ op: 'web', port: 8080, status: 'ONLINE', url: `https://${address}-8080.${NODE_DOMAIN}` })]);
    expect(online.ops).toEqual([expect.objectContaining({ id: 'web', status: 'running' })]);

    const node = await call(m.hostManagerUrl, 'GET', `/nodes/${agent.node.address}`, { key: m.adminKey });
    expect(await getByHost(node.body.ingressUrl, `${address.toLowerCase()}.${NODE_DOMAIN}`)).toBe('hello\n');

    const stopped = await dm.as(user, 'POST', `/jobs/${address}/stop`);
    expect(stopped.body).toMatchObject({ status: 'STOPPED', reason: 'stopped by the poster' });
    await expectSettledExactly(user, stopped.body);

    const finished = await until(user, address, (j) => j.resultCid !== null, 'the node to report the end');
    expect(finished.status).toBe('STOPPED');
    await waitFor(async () => (await docker.listContainers({ all: true, filters: JSON.stringify({ label: [`ocg.job=${address}`] }) })).length === 0, {
      what: 'containers removed',
    });
  });

  it('stops a job when its paid duration is over and charges exactly that duration', async () => {
    const user = await m.newUser(CREDITS);
    const posted = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.address, durationSeconds: 3 });
    const ended = await until(user, posted.body.address, (j) => j.settlement === 'settled', 'the job to end and settle');
    expect(ended).toMatchObject({ status: 'STOPPED', reason: 'duration ended', billedSeconds: 3, cost: 3 * PRICE });
    await expectSettledExactly(user, ended);
  });

  it('completes a job whose ops all end, stores its result and charges only the seconds it ran', async () => {
    const user = await m.newUser(CREDITS);
    const posted = await dm.as(user, 'POST', '/jobs', { definition: quickJob('answer=42'), market: market.name, durationSeconds: 600 });
    const done = await until(user, posted.body.address, (j) => j.settlement === 'settled', 'the job to complete and settle');
    expect(done).toMatchObject({ status: 'COMPLETED', ops: [expect.objectContaining({ id: 'task', status: 'completed', exitCode: 0 })] });
    expect(done.billedSeconds).toBeLessThan(600);
    await expectSettledExactly(user, done);

    const result = await dm.as(user, 'GET', `/cas/${done.resultCid}`);
    expect(result.headers.get('content-type')).toMatch(/^application\/json/);
    expect(result.body).toMatchObject({ job: posted.body.address, status: 'completed', results: { task: { answer: ['42'] } } });
    const stored = await dm.as(user, 'GET', `/cas/${done.definitionCid}`);
    expect(stored.body.ops[0].args.image).toBe(BUSYBOX_IMAGE);
    expect((await page(posted.body.address, user)).ops[0].logTail).toContainEqual({ stream: 'stdout', text: 'answer=42' });
  });

  it("reports a running op's last lines of output for the job page within seconds", async () => {
    const user = await m.newUser(CREDITS);
    const posted = await dm.as(user, 'POST', '/jobs', { definition: definition([runOp('talk', 'echo hello from the op; sleep 600')]), market: market.name, durationSeconds: 600 });
    const tail = await waitFor(async () => (await page(posted.body.address, user)).ops[0].logTail.find((l: { text: string }) => l.text === 'hello from the op'), {
      timeoutMs: 30_000,
      what: 'the log tail on the job page',
    });
    expect(tail).toEqual({ stream: 'stdout', text: 'hello from the op' });
    expect((await job(user, posted.body.address)).status).toBe('RUNNING');
    await dm.as(user, 'POST', `/jobs/${posted.body.address}/stop`);
  });
});

/** fetch drops a Host header; the ingress routes by it. */
function getByHost(url: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { host } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
}
