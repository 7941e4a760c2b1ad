import { freePort } from '@ocg/testing';
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { call, startManagers, type Managers, type TestUser } from './support/managers';
import { SignedNode, cpuSpecs } from './support/nodes';
import { runningJob } from './support/jobs';

describe('operators control their nodes', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let user: TestUser;
  let market: { address: string; name: string; joinToken: string };

  beforeAll(async () => {
    const port = await freePort();
    m = await startManagers({ deploymentManagerUrl: `http://127.0.0.1:${port}` });
    // host-manager reaches this in-process deployment-manager at a port chosen before either starts.
    dm = await startDeploymentManager(m, {}, { port });
    user = await m.newUser(1_000_000_000);
    market = await m.createMarket({ pricePerSecond: 1000 });
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  const admin = (method: string, path: string, body?: unknown) => call(m.hostManagerUrl, method, path, { key: m.adminKey, body });
  const job = (address: string) => dm.as(user, 'GET', `/jobs/${address}`).then((r) => r.body);
  const claim = (node: SignedNode) => node.send(dm.url, '/node-jobs/claim', { market: market.address });
  const heartbeat = (node: SignedNode) => node.send(m.hostManagerUrl, '/nodes/heartbeat', {});

  it('disables a node: its jobs are stopped and settled, its claims and heartbeats refused, until enabled', async () => {
    const node = new SignedNode();
    await node.register(m, market.name, market.joinToken);
    const address = await runningJob(dm, user, node, market.name);

    const res = await admin('POST', `/nodes/${node.address}/disable`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ address: node.address, state: 'DISABLED', stoppedJobs: [address] });
    expect(await job(address)).toMatchObject({ status: 'STOPPED', reason: 'node disabled by an operator', settlement: 'settled' });
    expect((await admin('GET', `/nodes/${node.address}`)).body).toMatchObject({ state: 'DISABLED' });

    expect(await claim(node)).toMatchObject({ status: 403, body: { message: expect.stringContaining('disabled by an operator') } });
    expect((await heartbeat(node)).status).toBe(403);
    const again = await node.send(m.hostManagerUrl, '/nodes/register', {
      market: market.name,
      joinToken: market.joinToken,
      specs: cpuSpecs,
      domain: 'node.test',
      ingressUrl: 'http://127.0.0.1:9',
    });
    expect(again.status).toBe(403);

    expect((await admin('POST', `/nodes/${node.address}/enable`)).body).toMatchObject({ state: 'ACTIVE' });
    expect((await heartbeat(node)).status).toBe(200);
    expect((await claim(node)).status).toBe(200);
  });

  it('removes a node: its jobs are stopped and settled, and it is gone', async () => {
    const node = new SignedNode();
    await node.register(m, market.name, market.joinToken);
    const address = await runningJob(dm, user, node, market.name);
    const res = await admin('POST', `/nodes/${node.address}/remove`, { reason: 'decommissioned' });
    expect(res.body).toEqual({ address: node.address, state: 'REMOVED', stoppedJobs: [address] });
    expect(await job(address)).toMatchObject({ status: 'STOPPED', reason: 'decommissioned', settlement: 'settled' });
    expect((await admin('GET', `/nodes/${node.address}`)).status).toBe(404);
    expect((await claim(node)).status).toBe(403);
    expect((await admin('POST', `/nodes/${node.address}/remove`)).status).toBe(404);
  });

  it('rotating the join token with revokeNodes removes the nodes that joined with the old one', async () => {
    const own = await m.createMarket({ pricePerSecond: 1 });
    const [a, b] = [new SignedNode(), new SignedNode()];
    await a.register(m, own.name, own.joinToken);
    await b.register(m, own.name, own.joinToken);
    const address = await runningJob(dm, user, a, own.name);

    const kept = await admin('POST', `/markets/${own.address}/rotate-join-token`, {});
    expect(kept.body.revokedNodes).toEqual([]);
    expect((await admin('GET', `/nodes/${a.address}`)).status).toBe(200);

    const rotated = await admin('POST', `/markets/${own.address}/rotate-join-token`, { revokeNodes: true });
    expect(rotated.status).toBe(200);
    expect([...rotated.body.revokedNodes].sort()).toEqual([a.address, b.address].sort());
    expect(await job(address)).toMatchObject({ status: 'STOPPED', reason: expect.stringContaining('join token was rotated') });
    expect((await a.send(dm.url, '/node-jobs/claim', { market: own.address })).status).toBe(403);
    // The new token lets a node join again.
    await b.register(m, own.name, rotated.body.joinToken);
  });

  it('needs nodes:manage: a user key cannot disable a node', async () => {
    const node = new SignedNode();
    await node.register(m, market.name, market.joinToken);
    const res = await call(m.hostManagerUrl, 'POST', `/nodes/${node.address}/disable`, { key: user.key, body: {} });
    expect(res.status).toBe(403);
  });
});
