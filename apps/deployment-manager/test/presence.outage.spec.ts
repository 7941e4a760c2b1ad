/**
 * Redis trouble never ends a healthy job (issue: a Redis outage of about
 * 100 s made the sweeper stop a running job as "node went silent" while the
 * node was alive). deployment-manager runs here on a Redis of its own that
 * the test stops and starts; host-manager keeps its own Redis up, as when
 * only deployment-manager's connection is cut.
 */
import { redisKeys } from '@ocg/redis';
import { startEphemeralRedis, waitFor, type EphemeralServer } from '@ocg/testing';
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, type Managers } from './support/managers';
import { SignedNode } from './support/nodes';
import { age, runningJob } from './support/jobs';

const GRACE_SECONDS = 3;

describe('node presence while Redis is down', () => {
  let m: Managers;
  let redis: EphemeralServer;
  let dm: TestDeploymentManager;
  let market: { address: string; name: string; joinToken: string };

  beforeAll(async () => {
    m = await startManagers();
    redis = await startEphemeralRedis();
    dm = await startDeploymentManager(m, { PRESENCE_GRACE_SECONDS: GRACE_SECONDS, NODE_SILENCE_SECONDS: 60 }, { redisUrl: redis.url });
    market = await m.createMarket({ pricePerSecond: 1000 });
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await redis?.dispose();
    await m?.stop();
  });

  afterEach(async () => {
    await redis.start();
    await waitFor(() => dm.redis.ping().then(() => true), { timeoutMs: 10_000, what: "deployment-manager's Redis to be back" });
  });

  /** A registered node, present in deployment-manager's Redis too (host-manager writes presence into its own). */
  const liveNode = async () => {
    const node = new SignedNode();
    await node.register(m, market.name, market.joinToken);
    await dm.redis.set(redisKeys.nodePresence(node.address), '1', 'EX', 300);
    return node;
  };
  const lastSeen = async (address: string) =>
    ((await dm.db.query(`SELECT last_seen_at FROM jobs WHERE address = $1`, [address])) as { last_seen_at: Date }[])[0].last_seen_at.getTime();
  const status = async (address: string) => ((await dm.db.query(`SELECT status, end_reason FROM jobs WHERE address = $1`, [address])) as { status: string }[])[0].status;

  it("answers a live node's sync from host-manager's record while Redis is down, at once, and keeps hearing from it", async () => {
    const user = await m.newUser(1_000_000);
    const node = await liveNode();
    const address = await runningJob(dm, user, node, market.name, 500);
    await age(dm, address, 30);
    await redis.stop();
    const started = Date.now();
    const sync = await node.send(dm.url, '/node-jobs/sync', { running: [address] });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(sync.status).toBe(200);
    expect(sync.body.deadlines.map((d: { job: string }) => d.job)).toEqual([address]);
    expect(Date.now() - (await lastSeen(address))).toBeLessThan(5000);
  });

  it('refuses an unregistered key while Redis is down (403, not a pass and not 503)', async () => {
    await redis.stop();
    const stranger = new SignedNode();
    const res = await stranger.send(dm.url, '/node-jobs/sync', { running: [] });
    expect(res.status).toBe(403);
  });

  it('gives no "went silent" verdict while Redis is down, nor until it has answered for the grace period again', async () => {
    const user = await m.newUser(1_000_000);
    const node = await liveNode();
    const address = await runningJob(dm, user, node, market.name, 500);
    await age(dm, address, 90);
    await dm.db.query(`UPDATE host_manager.nodes SET last_seen_at = now() - interval '90 seconds' WHERE address = $1`, [node.address]);
    await redis.stop();
    await dm.services.sweeper.sweep();
    expect(await status(address)).toBe('RUNNING');
    await redis.start(); // empty: every presence key is gone, as after a Redis restart
    await waitFor(() => dm.redis.ping().then(() => true), { timeoutMs: 10_000, what: 'the reconnect' });
    await dm.services.sweeper.sweep();
    expect(await status(address)).toBe('RUNNING');
    await new Promise((r) => setTimeout(r, GRACE_SECONDS * 1000 + 200));
    await dm.services.sweeper.sweep(); // observed silence: now it counts
    expect(await status(address)).toBe('STOPPED');
  });
});
