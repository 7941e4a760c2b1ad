import { DEFAULT_JOB_LIMITS } from '@ocg/contracts';
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { definition, runOp, sleeper } from './support/definitions';
import { startManagers, type Managers, type TestUser } from './support/managers';
import { SignedNode } from './support/nodes';

const volume = (id: string) => ({ type: 'container/create-volume', id, args: { name: id } });

describe('what a job may ask for, from its market', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let user: TestUser;
  let small: { address: string; name: string; joinToken: string };

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    user = await m.newUser(1_000_000_000);
    small = await m.createMarket({
      pricePerSecond: 1,
      jobLimits: {
        maxOps: 2,
        maxVolumes: 1,
        cpusPerContainer: 2,
        cpusPerJob: 3,
        memoryBytesPerContainer: 1024 ** 3,
        memoryBytesPerJob: 1536 * 1024 ** 2,
        pidsPerContainer: 200,
        pidsPerJob: 300,
        volumeBytesPerJob: 5 * 1024 ** 3,
        bytesPerResource: 2 * 1024 ** 3,
        resourceBytesPerJob: 3 * 1024 ** 3,
      },
      containerPolicy: { user: '1000:1000', readOnlyRootFilesystem: true },
    });
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  it('refuses more ops than the market allows at posting, naming the field and the limit', async () => {
    const ops = [runOp('a', 'true'), runOp('b', 'true'), runOp('c', 'true')];
    const res = await dm.as(user, 'POST', '/jobs', { definition: definition(ops), market: small.name });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/definition/ops', message: expect.stringContaining('has 3 ops, over the limit of 2 ops per job') }]);
    expect(res.body.message).toContain('jobLimits.maxOps');
  });

  it('refuses more volumes than the market allows', async () => {
    const res = await dm.as(user, 'POST', '/jobs', { definition: definition([volume('v1'), volume('v2')]), market: small.name });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/definition/ops', message: expect.stringContaining('creates 2 volumes, over the limit of 1') }]);
  });

  it('refuses at posting a definition that could never start (an env value over 128 KiB, a volume at /proc)', async () => {
    const big = definition([runOp('a', 'true', { args: { env: { BIG: 'x'.repeat(200 * 1024) } } })]);
    const env = await dm.as(user, 'POST', '/jobs', { definition: big, market: small.name });
    expect(env.status).toBe(400);
    expect(env.body.errors).toEqual([{ path: '/definition/ops/0/args/env/BIG', message: expect.stringContaining('128 KiB') }]);
    const proc = definition([volume('v'), runOp('a', 'true', { args: { volumes: [{ name: 'v', dest: '/proc' }] }, execution: { depends_on: ['v'] } })]);
    const mount = await dm.as(user, 'POST', '/jobs', { definition: proc, market: small.name });
    expect(mount.status).toBe(400);
    expect(mount.body.errors).toEqual([{ path: '/definition/ops/1/args/volumes/0/dest', message: expect.stringContaining('/proc') }]);
    expect(await m.balance(user)).toMatchObject({ held: 0, spent: 0 });
  });

  it("refuses more containers than the per-job sums can share out, each needing Docker's minimum", async () => {
    const tight = await m.createMarket({ pricePerSecond: 1, jobLimits: { memoryBytesPerContainer: 8 * 1024 ** 2, memoryBytesPerJob: 13 * 1024 ** 2 } });
    const three = definition([runOp('a', 'true'), runOp('b', 'true'), runOp('c', 'true')]);
    const res = await dm.as(user, 'POST', '/jobs', { definition: three, market: tight.name });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/definition/ops', message: expect.stringContaining('runs 3 containers, more than the per-job limits') }]);
    expect(res.body.errors[0].message).toContain('at most 2');
  });

  it('hands the node per-container limits with the claim: the per-job sums shared out, and the container policy', async () => {
    const node = new SignedNode();
    await node.register(m, small.name, small.joinToken);
    const posted = await dm.as(user, 'POST', '/jobs', { definition: definition([runOp('a', 'sleep 60'), runOp('b', 'sleep 60')]), market: small.name });
    expect(posted.status).toBe(200);
    const claimed = await node.send(dm.url, '/node-jobs/claim', { market: small.address });
    expect(claimed.body.assignment.containerLimits).toEqual({
      cpus: 1.5,
      memoryBytes: 768 * 1024 ** 2,
      pids: 150,
      diskBytes: DEFAULT_JOB_LIMITS.diskBytesPerContainer,
      volumeBytes: 5 * 1024 ** 3,
      bytesPerResource: 2 * 1024 ** 3,
      resourceBytesPerJob: 3 * 1024 ** 3,
      user: '1000:1000',
      readOnlyRootFilesystem: true,
    });
  });

  it('gives a node no more jobs than the capacity it declared', async () => {
    const market = await m.createMarket({ pricePerSecond: 1 });
    const node = new SignedNode();
    await node.register(m, market.name, market.joinToken, 2);
    for (let i = 0; i < 3; i++) expect((await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name })).status).toBe(200);
    const claims = await Promise.all([0, 1, 2, 3].map(() => node.send(dm.url, '/node-jobs/claim', { market: market.address })));
    expect(claims.filter((c) => c.body.assignment).length).toBe(2);
    const running = claims.flatMap((c) => (c.body.assignment ? [c.body.assignment.job as string] : []));
    await dm.as(user, 'POST', `/jobs/${running[0]}/stop`);
    const next = await node.send(dm.url, '/node-jobs/claim', { market: market.address });
    expect(next.body.assignment).not.toBeNull();
  });
});
