import { ensureBusyboxImage, freePort, launchServices, waitFor, type LaunchedStack } from '@ocg/testing';
import { deploymentManagerEnv } from './support/deployment-manager';
import { sleeper, webJob } from './support/definitions';
import { call, startManagers, type Managers, type TestUser } from './support/managers';
import { startAgent, startGateway, type AgentProcess } from './support/nodes';
import { expectBalance } from './support/jobs';

const PRICE = 1000;
const CREDITS = 50_000_000;

describe('deployment-manager killed mid-job and started again', () => {
  let m: Managers;
  let port: number;
  let dm: LaunchedStack | undefined;
  let gateway: LaunchedStack;
  let agent: AgentProcess;
  let market: { address: string; name: string; joinToken: string };
  const lines: string[] = [];

  const startDm = async () =>
    launchServices({
      only: ['deployment-manager'],
      databaseUrl: m.databaseUrl,
      redisUrl: m.redisUrl,
      ports: { 'deployment-manager': port },
      logLevel: 'info',
      serviceEnv: { 'deployment-manager': { ...deploymentManagerEnv(m), SWEEP_INTERVAL_MS: '250' } },
      onLine: (line) => lines.push(line),
    });
  const dmUrl = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    await ensureBusyboxImage();
    m = await startManagers();
    port = await freePort();
    dm = await startDm();
    gateway = await startGateway(m, dmUrl());
    market = await m.createMarket({ pricePerSecond: PRICE, defaultDurationSeconds: 600 });
    agent = await startAgent({ controlPlaneUrl: gateway.urls.gateway, market: market.name, joinToken: market.joinToken });
  }, 180_000);

  afterAll(async () => {
    await agent?.stop();
    await agent?.cleanup();
    await gateway?.stop();
    await dm?.stop();
    await m?.stop();
  });

  const get = (user: TestUser, address: string) => call(dmUrl(), 'GET', `/jobs/${address}`, { key: user.key }).then((r) => r.body);
  const until = (user: TestUser, address: string, test: (j: any) => boolean, what: string) =>
    waitFor(
      async () => {
        const j = await get(user, address);
        return test(j) ? j : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: `${what}\n${lines.slice(-10).join('\n')}\n${agent.lines.slice(-10).join('\n')}` },
    );

  it('loses no job and no credit: running jobs carry on, jobs that ended meanwhile are stopped and settled exactly', async () => {
    const user = await m.newUser(CREDITS);
    const post = (body: object) => call(dmUrl(), 'POST', '/jobs', { key: user.key, body: { market: market.name, ...body } }).then((r) => r.body.address as string);
    const web = await post({ definition: webJob(), durationSeconds: 600 });
    await until(user, web, (j) => j.endpoints.some((e: any) => e.status === 'ONLINE'), 'the web job to serve');
    // Posted once the web job serves: its 4 s must not pass while the web job starts (on a loaded machine they did).
    const short = await post({ definition: sleeper(), durationSeconds: 4 });
    await until(user, short, (j) => j.status === 'RUNNING', 'the short job to run');

    const proc = dm!.processes.get('deployment-manager')!;
    proc.child.kill('SIGKILL');
    await proc.exited;
    await new Promise((r) => setTimeout(r, 6000)); // the short job's duration passes while nobody settles anything
    dm = await startDm();

    const ended = await until(user, short, (j) => j.settlement === 'settled', 'the short job to be stopped and settled after the restart');
    expect(ended).toMatchObject({ status: 'STOPPED', reason: 'duration ended', billedSeconds: 4, cost: 4 * PRICE });
    const carriedOn = await get(user, web);
    expect(carriedOn).toMatchObject({ status: 'RUNNING', node: agent.node.address });
    expect(carriedOn.endpoints[0].status).toBe('ONLINE');

    const stopped = (await call(dmUrl(), 'POST', `/jobs/${web}/stop`, { key: user.key })).body;
    expect(stopped).toMatchObject({ status: 'STOPPED', settlement: 'settled' });
    await expectBalance(m, user, CREDITS, ended.cost + stopped.cost);
    await until(user, short, (j) => j.resultCid !== null, "the node's delayed end report of the short job");
    await until(user, web, (j) => j.resultCid !== null, "the node's end report of the web job");
    await expectBalance(m, user, CREDITS, ended.cost + stopped.cost);
  }, 180_000); // a restart, a 6 s wait and up to six 60 s waits: jest's default 30 s cut it short on a loaded machine
});
