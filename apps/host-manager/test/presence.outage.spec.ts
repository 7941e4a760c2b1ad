/**
 * Node presence while host-manager's Redis is down: heartbeats still answer
 * at once and record lastSeenAt in Postgres, and a live node stays ONLINE
 * (deployment-manager asks this record when its own Redis check fails).
 */
import { startEphemeralRedis, waitFor, type EphemeralServer } from '@ocg/testing';
import { startHostManager, TestNode, type Harness } from './harness';

describe('node presence while Redis is down', () => {
  let redis: EphemeralServer;
  let hm: Harness;
  let market: { address: string; joinToken: string; name: string };

  beforeAll(async () => {
    redis = await startEphemeralRedis();
    hm = await startHostManager({ NODE_PRESENCE_TTL_SECONDS: 30, NODE_LAST_SEEN_WRITE_SECONDS: 60 }, { redisUrl: redis.url });
    market = await hm.createMarket({ name: 'Outage pool' });
  }, 120_000);

  afterAll(async () => {
    await hm?.close();
    await redis?.dispose();
  });

  afterEach(async () => {
    await redis.start();
    await waitFor(() => hm.redis.ping().then(() => true), { timeoutMs: 10_000, what: "host-manager's Redis to be back" });
  });

  const status = async (node: TestNode) =>
    (await hm.call('GET', `/internal/nodes/${node.address}`, { key: null, headers: { 'x-ocg-internal-token': 'internal-token-for-host-manager-tests' } })).body;

  it('keeps a live node ONLINE whose lastSeenAt was last written within the write interval (it may lag that much)', async () => {
    const node = new TestNode(hm);
    expect((await node.register(market.address, market.joinToken)).status).toBe(200);
    // Heartbeats kept arriving through Redis; Postgres was last written 45 s ago (written at most every 60 s).
    await hm.db.query(`UPDATE nodes SET last_seen_at = now() - interval '45 seconds' WHERE address = $1`, [node.address]);
    expect((await status(node)).status).toBe('ONLINE');
    await redis.stop();
    expect((await status(node)).status).toBe('ONLINE');
  });

  it('answers heartbeats at once while Redis has been down for seconds, and records them in Postgres', async () => {
    const node = new TestNode(hm);
    expect((await node.register(market.address, market.joinToken)).status).toBe(200);
    await hm.db.query(`UPDATE nodes SET last_seen_at = now() - interval '200 seconds' WHERE address = $1`, [node.address]);
    await redis.stop();
    await new Promise((r) => setTimeout(r, 4000)); // the client's reconnect backoff has grown by now
    const started = Date.now();
    const beat = await node.send('/nodes/heartbeat', {});
    expect(Date.now() - started).toBeLessThan(1000);
    expect(beat.status).toBe(200);
    const record = await status(node);
    expect(record.status).toBe('ONLINE');
    expect(Date.now() - Date.parse(record.lastSeenAt)).toBeLessThan(5000);
  }, 20_000);

  it('shows a node OFFLINE while Redis is down when Postgres has not seen it for longer than the TTL and the write interval', async () => {
    const node = new TestNode(hm);
    expect((await node.register(market.address, market.joinToken)).status).toBe(200);
    await hm.db.query(`UPDATE nodes SET last_seen_at = now() - interval '100 seconds' WHERE address = $1`, [node.address]);
    await redis.stop();
    expect((await status(node)).status).toBe('OFFLINE');
  });
});
