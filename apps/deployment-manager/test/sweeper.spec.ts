import { redisKeys } from '@ocg/redis';
import { startDeploymentManager, startSecondInstance, type TestDeploymentManager } from './support/deployment-manager';
import { sleeper } from './support/definitions';
import { startManagers, type Managers } from './support/managers';
import { SignedNode } from './support/nodes';
import { age, expectBalance, runningJob } from './support/jobs';

const PRICE = 1000;
const CREDITS = 1_000_000;

describe('the sweeper', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let market: { address: string; name: string; joinToken: string };

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m, { NODE_SILENCE_SECONDS: 60, LOST_JOB_GRACE_SECONDS: 60 });
    market = await m.createMarket({ pricePerSecond: PRICE });
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  const registered = async () => {
    const node = new SignedNode();
    await node.register(m, market.name, market.joinToken);
    return node;
  };
  const job = (user: { key: string }, address: string) => dm.as(user as never, 'GET', `/jobs/${address}`).then((r) => r.body);
  /** No heartbeat since `seconds` ago: the presence key is gone and host-manager's lastSeenAt is that old. */
  const silence = async (node: SignedNode, seconds: number) => {
    await dm.redis.del(redisKeys.nodePresence(node.address));
    await dm.db.query(`UPDATE host_manager.nodes SET last_seen_at = now() - make_interval(secs => $2) WHERE address = $1`, [node.address, seconds]);
  };

  it('stops the jobs of a node silent for 60 s, charging until it was last heard from', async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered();
    const address = await runningJob(dm, user, node, market.name, 500);
    await age(dm, address, 90); // claimed 90 s ago, last heard from then
    await silence(node, 90); // and no heartbeat since
    await dm.services.sweeper.sweep();
    const stopped = await job(user, address);
    expect(stopped).toMatchObject({ status: 'STOPPED', settlement: 'settled', billedSeconds: 0, cost: 0 });
    expect(stopped.reason).toBe(`node ${node.address} went silent (no heartbeat or report for 60 s)`);
    await expectBalance(m, user, CREDITS, 0);
  });

  it("charges a silent node's job for the time until its last report", async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered();
    const address = await runningJob(dm, user, node, market.name, 500);
    await dm.db.query(`UPDATE jobs SET started_at = now() - interval '100 seconds', last_seen_at = now() - interval '70 seconds' WHERE address = $1`, [address]);
    await silence(node, 70);
    await dm.services.sweeper.sweep();
    expect(await job(user, address)).toMatchObject({ status: 'STOPPED', billedSeconds: 30, cost: 30 * PRICE });
    await expectBalance(m, user, CREDITS, 30 * PRICE);
  });

  it('keeps the jobs of a quiet node whose presence key is gone but whose heartbeats host-manager recorded in Postgres (Redis lost its data)', async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered(); // host-manager wrote lastSeenAt just now
    const address = await runningJob(dm, user, node, market.name, 500);
    await age(dm, address, 90);
    await dm.redis.del(redisKeys.nodePresence(node.address));
    await dm.services.sweeper.sweep();
    expect((await job(user, address)).status).toBe('RUNNING');
  });

  it('keeps the jobs of a quiet node whose heartbeats still arrive', async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered();
    const address = await runningJob(dm, user, node, market.name, 500);
    await age(dm, address, 90);
    await dm.services.sweeper.sweep();
    expect((await job(user, address)).status).toBe('RUNNING');
  });

  it('stops a job at the end of its duration, settles it, and tells its node at the next sync', async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered();
    const address = await runningJob(dm, user, node, market.name, 10);
    await age(dm, address, 12);
    await dm.services.sweeper.sweep();
    expect(await job(user, address)).toMatchObject({ status: 'STOPPED', reason: 'duration ended', billedSeconds: 10, cost: 10 * PRICE, settlement: 'settled' });
    await expectBalance(m, user, CREDITS, 10 * PRICE);
    const sync = await node.send(dm.url, '/node-jobs/sync', { running: [address] });
    expect(sync.body).toEqual({ stop: [{ job: address, reason: 'duration ended' }], deadlines: [] });
  });

  it('tells a node to stop jobs that are not its own or unknown', async () => {
    const user = await m.newUser(CREDITS);
    const [a, b] = [await registered(), await registered()];
    const address = await runningJob(dm, user, a, market.name);
    const sync = await b.send(dm.url, '/node-jobs/sync', { running: [address, 'NoSuchJob'] });
    expect(sync.body.stop).toEqual([
      { job: address, reason: 'not assigned to this node' },
      { job: 'NoSuchJob', reason: 'unknown job' },
    ]);
  });

  it('fails a job its node no longer lists, charging until it was last heard from', async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered();
    const address = await runningJob(dm, user, node, market.name, 500);
    await age(dm, address, 61);
    await node.send(dm.url, '/node-jobs/sync', { running: [] });
    const failed = await job(user, address);
    expect(failed).toMatchObject({ status: 'FAILED', reason: `node ${node.address} no longer runs it`, settlement: 'settled', billedSeconds: 0 });
    await expectBalance(m, user, CREDITS, 0);
  });

  it('fails a job no node claimed within the queue timeout and releases its hold', async () => {
    const user = await m.newUser(CREDITS);
    const address = (await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 100 })).body.address;
    await dm.db.query(`UPDATE jobs SET created_at = now() - interval '2 days' WHERE address = $1`, [address]);
    await dm.services.sweeper.sweep();
    expect(await job(user, address)).toMatchObject({ status: 'FAILED', reason: 'no node of the market claimed it within 86400 s', settlement: 'settled', cost: 0 });
    await expectBalance(m, user, CREDITS, 0);
  });

  it('sweeps from several instances at once without ending or charging a job twice', async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered();
    const address = await runningJob(dm, user, node, market.name, 10);
    await age(dm, address, 12);
    const other = await startSecondInstance(m);
    try {
      await Promise.all([dm.services.sweeper.sweep(), other.services.sweeper.sweep(), dm.services.sweeper.sweep()]);
    } finally {
      await other.close();
    }
    expect(await job(user, address)).toMatchObject({ status: 'STOPPED', cost: 10 * PRICE, settlement: 'settled' });
    await expectBalance(m, user, CREDITS, 10 * PRICE);
  });
});
