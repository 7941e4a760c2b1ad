import type { Redis } from 'ioredis';
import { createRedis, hitRateLimit, redisKeys } from '../src';
import { testRedis, sleep } from '@ocg/testing';

let r: Redis;
beforeAll(async () => {
  r = createRedis((await testRedis()).url);
});
afterAll(() => r.disconnect());

const hits = async (key: string, n: number, limit: number, windowSeconds: number) => {
  const results = [];
  for (let i = 0; i < n; i++) results.push(await hitRateLimit(r, key, limit, windowSeconds));
  return results;
};

it('allows the limit, then blocks with a Retry-After within the window', async () => {
  const key = redisKeys.rateLimit('jobs:post', 'user-1');
  const results = await hits(key, 4, 3, 60);
  expect(results.map((x) => x.allowed)).toEqual([true, true, true, false]);
  expect(results.map((x) => x.remaining)).toEqual([2, 1, 0, 0]);
  expect(results[2].retryAfterSeconds).toBe(0);
  expect(results[3].retryAfterSeconds).toBeGreaterThanOrEqual(59);
  expect(results[3].retryAfterSeconds).toBeLessThanOrEqual(60);
});

it('counts each client separately', async () => {
  await hits(redisKeys.rateLimit('keys', 'a'), 2, 2, 60);
  const [other] = await hits(redisKeys.rateLimit('keys', 'b'), 1, 2, 60);
  expect(other).toMatchObject({ allowed: true, remaining: 1 });
});

it('allows again once the window has passed', async () => {
  const key = redisKeys.rateLimit('short', 'c');
  const [, blocked] = await hits(key, 2, 1, 1);
  expect(blocked).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
  await sleep(1100);
  expect(await hitRateLimit(r, key, 1, 1)).toMatchObject({ allowed: true, remaining: 0 });
});

it('repairs a counter that lost its expiry', async () => {
  const key = redisKeys.rateLimit('legacy', 'd');
  await r.set(key, '5');
  const result = await hitRateLimit(r, key, 10, 30);
  expect(result).toMatchObject({ allowed: true, remaining: 4 });
  expect(await r.ttl(key)).toBeGreaterThan(0);
});

it('rejects a limit that is not a positive integer', async () => {
  await expect(hitRateLimit(r, redisKeys.rateLimit('x', 'y'), 0, 10)).rejects.toThrow(/positive integer/);
});
