import type { Redis } from 'ioredis';
import { createRedis, getJson, publishJson, redisKeys, setJson, subscribeJson } from '../src';
import { testRedis, waitFor } from '@ocg/testing';

let url: string;
let r: Redis;
beforeAll(async () => {
  url = (await testRedis()).url;
  r = createRedis(url);
});
afterAll(() => r.disconnect());

it('builds namespaced keys and channels', () => {
  expect(redisKeys.apiKeyCache('ab12')).toBe('ocg:auth:apikey:ab12');
  expect(redisKeys.rateLimit('jobs', '10.0.0.1')).toBe('ocg:ratelimit:jobs:10.0.0.1');
  expect(redisKeys.nodePresence('7Np4')).toBe('ocg:node:presence:7Np4');
  expect(redisKeys.jobEvents('J1')).toBe('ocg:job:events:J1');
});

it('refuses an empty or blank key part', () => {
  expect(() => redisKeys.apiKeyCache('')).toThrow(/invalid redis key part/);
  expect(() => redisKeys.jobEvents('a b')).toThrow(/invalid redis key part/);
});

it('caches JSON with an expiry and treats unreadable entries as misses', async () => {
  const key = redisKeys.apiKeyCache('h1');
  await setJson(r, key, { userId: 'u1', scopes: ['jobs:read'] }, 30);
  expect(await getJson(r, key)).toEqual({ userId: 'u1', scopes: ['jobs:read'] });
  expect(await r.ttl(key)).toBeGreaterThan(25);
  await r.set(key, '{not json');
  expect(await getJson(r, key)).toBeUndefined();
  expect(await getJson(r, redisKeys.apiKeyCache('absent'))).toBeUndefined();
});

it('delivers published JSON to a subscriber until it unsubscribes', async () => {
  const sub = createRedis(url);
  const channel = redisKeys.jobEvents(`job-${Date.now()}`);
  const got: unknown[] = [];
  const unsubscribe = await subscribeJson(sub, channel, (m) => got.push(m));
  await publishJson(r, channel, { state: 'RUNNING' });
  await waitFor(() => got.length === 1, { what: 'the message' });
  await unsubscribe();
  expect(await publishJson(r, channel, { state: 'DONE' })).toBe(0);
  expect(got).toEqual([{ state: 'RUNNING' }]);
  sub.disconnect();
});
