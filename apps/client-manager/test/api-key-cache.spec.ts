/**
 * The key cache on its own, against the test Redis: what a read answers, when a
 * fill may write, and that an invalidation wins over a fill that raced it.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { API_KEY_INVALIDATED_CHANNEL, type ApiKeyInvalidatedEvent } from '@ocg/contracts';
import { createLogger } from '@ocg/http';
import { redisKeys, subscribeJson } from '@ocg/redis';
import { captureLogs, freePort, testRedis, waitFor } from '@ocg/testing';
import { ApiKeyCache, type CachedKey } from '../src/validation/api-key-cache';

const TTL = 60;
const unknown: CachedKey = { found: false };
const hashOf = () => randomBytes(32).toString('hex');
const entryKey = (hash: string) => redisKeys.apiKeyCache(hash);
const generationKey = (hash: string) => `${redisKeys.apiKeyCache(hash)}:gen`;

describe('ApiKeyCache', () => {
  let url: string;
  let redis: Redis;
  let logs: ReturnType<typeof captureLogs>;
  let cache: ApiKeyCache;
  beforeAll(async () => {
    url = (await testRedis()).url;
    redis = new Redis(url);
    logs = captureLogs();
    cache = new ApiKeyCache(redis, TTL, createLogger({ service: 'test', level: 'debug', destination: logs.stream }));
  });
  afterAll(() => redis.disconnect());

  it('answers a miss as no entry and the empty generation', async () => {
    expect(await cache.read(hashOf())).toStrictEqual({ entry: undefined, generation: '' });
  });

  it('keeps a filled entry for its TTL and answers it', async () => {
    const hash = hashOf();
    await cache.fill(hash, '', unknown);
    expect(await cache.read(hash)).toStrictEqual({ entry: unknown, generation: '' });
    const ttl = await redis.ttl(entryKey(hash));
    expect(ttl).toBeGreaterThan(TTL - 5);
    expect(ttl).toBeLessThanOrEqual(TTL);
  });

  it('treats an unreadable entry as a miss', async () => {
    const hash = hashOf();
    await redis.set(entryKey(hash), '{not json');
    expect(await cache.read(hash)).toStrictEqual({ entry: undefined, generation: '' });
  });

  it('writes nothing when the read that preceded the fill could not reach Redis', async () => {
    const hash = hashOf();
    await cache.fill(hash, null, unknown);
    expect(await redis.exists(entryKey(hash))).toBe(0);
  });

  it('refuses a fill that raced an invalidation, and drops the entry', async () => {
    const hash = hashOf();
    await cache.fill(hash, '', unknown);
    const { generation } = await cache.read(hash);
    await cache.invalidate('key_raced', hash);
    expect(await redis.exists(entryKey(hash))).toBe(0);
    await cache.fill(hash, generation, unknown);
    expect(await redis.exists(entryKey(hash))).toBe(0);
    // A reader after the invalidation fills again.
    const after = await cache.read(hash);
    expect(after.generation).toBe('1');
    await cache.fill(hash, after.generation, unknown);
    expect((await cache.read(hash)).entry).toEqual(unknown);
  });

  it('keeps the generation past the entry TTL, so a slow racing fill is still refused', async () => {
    const hash = hashOf();
    await cache.invalidate('key_gen', hash);
    const ttl = await redis.ttl(generationKey(hash));
    expect(ttl).toBeGreaterThan(TTL + 295);
    expect(ttl).toBeLessThanOrEqual(TTL + 300);
  });

  it('does not disturb the fills of other keys', async () => {
    const [mine, other] = [hashOf(), hashOf()];
    const { generation } = await cache.read(mine);
    await cache.invalidate('key_other', other);
    await cache.fill(mine, generation, unknown);
    expect((await cache.read(mine)).entry).toEqual(unknown);
  });

  it('publishes {keyId, hash} for the other services', async () => {
    const subscriber = new Redis(url);
    try {
      const events: ApiKeyInvalidatedEvent[] = [];
      await subscribeJson<ApiKeyInvalidatedEvent>(subscriber, API_KEY_INVALIDATED_CHANNEL, (e) => events.push(e));
      const hash = hashOf();
      await cache.invalidate('key_published', hash);
      await waitFor(() => events.some((e) => e.hash === hash), { what: 'invalidation event' });
      expect(events.filter((e) => e.hash === hash)).toEqual([{ keyId: 'key_published', hash }]);
    } finally {
      subscriber.disconnect();
    }
  });

  describe('when Redis is unreachable', () => {
    let down: Redis;
    let downLogs: ReturnType<typeof captureLogs>;
    let downCache: ApiKeyCache;
    beforeAll(async () => {
      down = new Redis(`redis://127.0.0.1:${await freePort()}`, { lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null, disconnectTimeout: 10 });
      down.on('error', () => undefined);
      downLogs = captureLogs();
      downCache = new ApiKeyCache(down, TTL, createLogger({ service: 'test', level: 'debug', destination: downLogs.stream }));
    });
    afterAll(() => down.disconnect());

    it('answers a miss with no generation (so nothing is filled) and warns', async () => {
      expect(await downCache.read(hashOf())).toStrictEqual({ generation: null });
      const line = (downLogs.lines() as { msg?: string; err?: unknown }[]).find((l) => l.msg === 'API key cache unavailable; validating against Postgres');
      expect(line?.err).toEqual(expect.any(String));
    });

    it('gives up an invalidation after three attempts, with backoff, and says how long the entry may live', async () => {
      const started = Date.now();
      await downCache.invalidate('key_down', hashOf());
      expect(Date.now() - started).toBeGreaterThanOrEqual(290); // 100 ms, then 200 ms between the attempts
      const line = (downLogs.lines() as { msg?: string }[]).find((l) => l.msg?.includes('not invalidated'));
      expect(line).toMatchObject({ keyId: 'key_down', msg: `API key cache entry not invalidated; it expires within ${TTL} s` });
    });
  });

  describe('when publishing fails', () => {
    const user = `no-publish-${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    let limited: Redis;
    beforeAll(async () => {
      // A real Redis user that may do everything but PUBLISH: the script runs, the announcement fails.
      await redis.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', '-publish');
      limited = new Redis(url, { username: user, password });
    });
    afterAll(async () => {
      limited.disconnect();
      await redis.call('ACL', 'DELUSER', user);
    });

    it('retries the whole invalidation, three times in all', async () => {
      const hash = hashOf();
      const limitedLogs = captureLogs();
      const c = new ApiKeyCache(limited, TTL, createLogger({ service: 'test', level: 'debug', destination: limitedLogs.stream }));
      await c.invalidate('key_retried', hash);
      expect(await redis.get(generationKey(hash))).toBe('3');
      expect(limitedLogs.text()).toContain('not invalidated');
    });
  });
});
