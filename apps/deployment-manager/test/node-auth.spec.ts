import { createSigner, generateWallet } from '@ocg/auth';
import { redisKeys } from '@ocg/redis';
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { sleeper } from './support/definitions';
import { startManagers, type Managers } from './support/managers';
import { SignedNode } from './support/nodes';

describe('node requests', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let market: { address: string; name: string; joinToken: string };
  let node: SignedNode;

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    market = await m.createMarket({ pricePerSecond: 1 });
    node = new SignedNode();
    await node.register(m, market.name, market.joinToken);
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  it('refuses an unsigned request with 401', async () => {
    const res = await node.send(dm.url, '/node-jobs/claim', { market: market.address }, { unsigned: true });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Node signature rejected: missing authorization header (a signed, timed auth header)');
  });

  it('refuses a request signed by another key than the node it names with 401', async () => {
    const res = await node.send(dm.url, '/node-jobs/claim', { market: market.address }, { signer: createSigner(generateWallet().secretKey) });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Node signature rejected: the signature does not verify against the node address');
  });

  it('refuses a request whose body differs from what was signed with 401', async () => {
    const res = await node.send(dm.url, '/node-jobs/claim', { market: market.address, waitSeconds: 0 }, { signedBody: { market: market.address } });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Node signature rejected: the signature covers another method, path or body');
  });

  it('refuses a well-signed request from a key that never registered with 403', async () => {
    const stranger = new SignedNode();
    const res = await stranger.send(dm.url, '/node-jobs/claim', { market: market.address });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain(`Node ${stranger.address} is not registered or has stopped sending heartbeats`);
  });

  it('refuses a registered node whose presence expired with 403, and takes it back after a heartbeat', async () => {
    const quiet = new SignedNode();
    await quiet.register(m, market.name, market.joinToken);
    await dm.redis.del(redisKeys.nodePresence(quiet.address));
    expect((await quiet.send(dm.url, '/node-jobs/claim', { market: market.address })).status).toBe(403);
    expect((await quiet.send(m.hostManagerUrl, '/nodes/heartbeat', {})).status).toBe(200);
    expect((await quiet.send(dm.url, '/node-jobs/claim', { market: market.address })).status).toBe(200);
  });

  it('refuses a registered node claiming the jobs of a market it did not join with 403', async () => {
    const other = await m.createMarket({ pricePerSecond: 1 });
    const res = await node.send(dm.url, '/node-jobs/claim', { market: other.address });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/joined another market/);
  });

  it('answers a registered node claiming in an empty market with no assignment', async () => {
    const res = await node.send(dm.url, '/node-jobs/claim', { market: market.address });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ assignment: null });
  });

  it("answers 404 to a node reporting on or finishing another node's job", async () => {
    const user = await m.newUser(1_000_000);
    const posted = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 100 });
    const claimed = await node.send(dm.url, '/node-jobs/claim', { market: market.address });
    expect(claimed.body.assignment.job).toBe(posted.body.address);
    const other = new SignedNode();
    await other.register(m, market.name, market.joinToken);
    const report = await other.send(dm.url, `/node-jobs/${posted.body.address}/report`, { ops: [] });
    const finish = await other.send(dm.url, `/node-jobs/${posted.body.address}/finish`, { status: 'completed', results: {}, ops: [] });
    expect([report.status, finish.status]).toEqual([404, 404]);
    expect((await dm.as(user, 'GET', `/jobs/${posted.body.address}`)).body).toMatchObject({ status: 'RUNNING', node: node.address });
  });

  it("refuses an endpoint host that is not the job's", async () => {
    const user = await m.newUser(1_000_000);
    const posted = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 100 });
    await node.send(dm.url, '/node-jobs/claim', { market: market.address });
    const res = await node.send(dm.url, `/node-jobs/${posted.body.address}/report`, { endpoints: [{ op: 'sleep', port: 80, host: 'someone-else-80', ready: true, online: true }] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('/endpoints/0/host');
  });
});
