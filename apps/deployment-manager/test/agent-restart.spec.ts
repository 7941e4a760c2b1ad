/**
 * A node agent killed and started again after its presence ran out: it
 * registers before it reports the jobs it adopts, so no report is refused
 * (403 "not registered") and the job carries on RUNNING.
 */
import { Redis } from 'ioredis';
import { ensureBusyboxImage, waitFor, type LaunchedStack } from '@ocg/testing';
import { redisKeys } from '@ocg/redis';
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { webJob } from './support/definitions';
import { startManagers, type Managers } from './support/managers';
import { startAgent, startGateway, type AgentProcess } from './support/nodes';

describe('a node agent restarted after its presence expired', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let gateway: LaunchedStack;
  const agents: AgentProcess[] = [];
  let market: { address: string; name: string; joinToken: string };

  beforeAll(async () => {
    await ensureBusyboxImage();
    m = await startManagers();
    dm = await startDeploymentManager(m, { SWEEP_INTERVAL_MS: 250 });
    gateway = await startGateway(m, dm.url);
    market = await m.createMarket({ pricePerSecond: 1000, defaultDurationSeconds: 600 });
  }, 180_000);

  afterAll(async () => {
    for (const a of agents) await a.stop();
    await agents[0]?.cleanup();
    await gateway?.stop();
    await dm?.close();
    await m?.stop();
  });

  it('registers again before it reports the job it adopted, and the job stays RUNNING', async () => {
    const start = (from?: AgentProcess) =>
      startAgent({ controlPlaneUrl: gateway.urls.gateway, market: market.name, joinToken: market.joinToken, node: from?.node, nodeId: from?.nodeId }).then((a) => {
        agents.push(a);
        return a;
      });
    const first = await start();
    const user = await m.newUser(50_000_000);
    const posted = await dm.as(user, 'POST', '/jobs', { definition: webJob(), market: market.name, durationSeconds: 600 });
    const address = posted.body.address as string;
    const job = async () => (await dm.as(user, 'GET', `/jobs/${address}`)).body;
    await waitFor(async () => (await job()).endpoints?.some((e: { status: string }) => e.status === 'ONLINE') || undefined, { timeoutMs: 60_000, what: 'the job to serve' });

    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    const redis = new Redis(m.redisUrl);
    await redis.del(redisKeys.nodePresence(first.node.address)); // as after NODE_PRESENCE_TTL_SECONDS of silence
    await redis.quit();

    const second = await start(first);
    await waitFor(() => second.lines.some((l) => l.includes('job adopted')) || undefined, { timeoutMs: 30_000, what: 'the job to be adopted' });
    await waitFor(() => second.lines.some((l) => l.includes('registered with the control plane')) || undefined, { timeoutMs: 30_000, what: 'the registration' });
    await new Promise((r) => setTimeout(r, 3000)); // reports and syncs go out meanwhile
    // Without the fields that carry the agent's own numbers: a line logged at .403 seconds, or a control plane, API or ingress on port
    // 24034 or 40393, is no refusal; and 403 only as a number of its own.
    const own = /"(time|node|nodeId|market|controlPlane|api|ingress)":"[^"]*"/g;
    expect(second.lines.filter((l) => /\b403\b|not registered|report failed/.test(l.replace(own, '')))).toEqual([]);
    expect(await job()).toMatchObject({ status: 'RUNNING', node: first.node.address });
    await dm.as(user, 'POST', `/jobs/${address}/stop`);
  });
});
