import { ensureBusyboxImage, waitFor, type LaunchedStack } from '@ocg/testing';
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { definition, runOp } from './support/definitions';
import { startManagers, type Managers, type TestUser } from './support/managers';
import { startAgent, startGateway, type AgentProcess } from './support/nodes';

/** Prints `count` lines of `x` × `chars` after `prefix`, to `stream`. */
const longLines = (count: number, chars: number, prefix = '', stream = '') =>
  `s=$(head -c ${chars} /dev/zero | tr '\\0' x); i=0; while [ $i -lt ${count} ]; do echo "${prefix}$s" ${stream}; i=$((i+1)); done`;

describe("one bad field never freezes a job's bookkeeping (a real node-agent)", () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let gateway: LaunchedStack;
  let agent: AgentProcess;
  let user: TestUser;
  let market: { address: string; name: string; joinToken: string };

  beforeAll(async () => {
    await ensureBusyboxImage();
    m = await startManagers();
    dm = await startDeploymentManager(m, { SWEEP_INTERVAL_MS: 250 });
    dm.services.sweeper.start();
    gateway = await startGateway(m, dm.url);
    market = await m.createMarket({ pricePerSecond: 1, defaultDurationSeconds: 600, maxDurationSeconds: 3600 });
    agent = await startAgent({ controlPlaneUrl: gateway.urls.gateway, market: market.name, joinToken: market.joinToken });
    user = await m.newUser(1_000_000_000);
  }, 180_000);

  afterAll(async () => {
    await agent?.stop();
    await agent?.cleanup();
    await gateway?.stop();
    await dm?.close();
    await m?.stop();
  });

  const ended = (address: string) =>
    waitFor(
      async () => {
        const j = (await dm.as(user, 'GET', `/jobs/${address}`)).body;
        return j.resultCid ? j : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250, what: `job ${address} to end with a result (agent: ${agent.lines.slice(-3).join(' / ')})` },
    );

  const post = async (def: object) => {
    const res = await dm.as(user, 'POST', '/jobs', { definition: def, market: market.name });
    expect(res.status).toBe(200);
    return res.body.address as string;
  };

  it("ends FAILED with its result stored when the op's output makes a huge failure reason", async () => {
    const address = await post(definition([runOp('loud', `${longLines(3, 12_000, '', '>&2')}; exit 1`)]));
    const job = await ended(address);
    expect(job.status).toBe('FAILED');
    const op = job.ops.find((o: { id: string }) => o.id === 'loud');
    expect(op).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(op.reason.length).toBeLessThanOrEqual(4000);
    expect(op.reason).toContain('(cut)');
    const result = await dm.as(user, 'GET', `/cas/${job.resultCid}`);
    expect(result.body).toMatchObject({ job: address, status: 'failed' });
  });

  it('ends COMPLETED with its result stored when the captured results are larger than a finish may carry', async () => {
    const address = await post(definition([runOp('chatty', longLines(600, 12_000, 'v='), { results: { values: 'v=(x+)' } })]));
    const job = await ended(address);
    expect(job.status).toBe('COMPLETED');
    const result = await dm.as(user, 'GET', `/cas/${job.resultCid}`);
    const values: string[] = result.body.results.chatty.values;
    expect(values.length).toBeGreaterThan(10);
    expect(values.length).toBeLessThan(600);
    expect(values[0]).toBe('x'.repeat(12_000));
  });

  it('refuses at posting a group name longer than a node may report, naming the field', async () => {
    const res = await dm.as(user, 'POST', '/jobs', { definition: definition([runOp('a', 'true', { execution: { group: 'g'.repeat(10_000) } })]), market: market.name });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/definition/ops/0/execution/group', message: expect.stringContaining('200') }]);
  });
});
