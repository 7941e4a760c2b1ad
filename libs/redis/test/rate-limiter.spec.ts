/** RateLimiter: the shared count in Redis, and this instance's own count when Redis does not answer in time. */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { testRedis } from '@ocg/testing';
import { RateLimiter, createRedis } from '../src';

const quiet = { debug: () => undefined };
const decisions = async (limiter: RateLimiter, client: string, n: number) => {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await limiter.check(client));
  return out.map((d) => d.allowed);
};

describe('with Redis answering', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = createRedis((await testRedis()).url);
  });
  afterAll(() => redis.disconnect());

  it('holds the limit across instances: two limiters of one scope share the count', async () => {
    const scope = `shared-${process.pid}-${Date.now()}`;
    const a = new RateLimiter(redis, scope, { limit: 3, windowSeconds: 60 }, quiet);
    const b = new RateLimiter(redis, scope, { limit: 3, windowSeconds: 60 }, quiet);
    expect([...(await decisions(a, 'c', 2)), ...(await decisions(b, 'c', 2))]).toEqual([true, true, true, false]);
    const denied = await b.check('c');
    expect(denied).toMatchObject({ allowed: false, retryAfterSeconds: expect.any(Number) });
  });
});

describe('with Redis not answering', () => {
  let hole: net.Server;
  let redis: Redis;
  const held: net.Socket[] = [];
  beforeAll(async () => {
    // Accepts the connection and never answers: a Redis too slow for any request's budget.
    hole = net.createServer((socket) => held.push(socket.on('error', () => undefined)));
    await new Promise<void>((done) => hole.listen(0, '127.0.0.1', done));
    redis = createRedis(`redis://127.0.0.1:${(hole.address() as AddressInfo).port}`, { commandTimeoutMs: 5000, onError: () => undefined });
  });
  afterAll(async () => {
    redis.disconnect();
    for (const s of held) s.destroy();
    await new Promise((done) => hole.close(done));
  });

  it("still limits: this instance's own count of the window decides, per client", async () => {
    const logged: object[] = [];
    const limiter = new RateLimiter(redis, 'slow', { limit: 3, windowSeconds: 60 }, { debug: (obj) => logged.push(obj) });
    const began = Date.now();
    expect(await decisions(limiter, 'a', 5)).toEqual([true, true, true, false, false]);
    expect(Date.now() - began).toBeLessThan(5 * 1000); // each waited its 250 ms budget, not the command timeout
    const denied = await limiter.check('a');
    expect(denied.allowed).toBe(false);
    expect(denied.allowed === false && denied.retryAfterSeconds).toBeGreaterThanOrEqual(55);
    expect(await decisions(limiter, 'b', 1)).toEqual([true]);
    expect(logged.length).toBe(7);
  }, 20_000);

  it('lets every request through when the limit is off', async () => {
    const limiter = new RateLimiter(redis, 'off', { limit: 0, windowSeconds: 60 }, quiet);
    expect(await decisions(limiter, 'a', 5)).toEqual([true, true, true, true, true]);
  });
});
