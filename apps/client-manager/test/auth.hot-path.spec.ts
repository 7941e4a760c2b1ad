/**
 * What one authenticated request costs Redis, counted on a Redis of the
 * test's own: a warm key is one MGET and no write, even though tsoa asks both
 * security alternatives (API key, access token) for a verdict.
 */
import { Redis } from 'ioredis';
import { generateApiKey } from '@ocg/auth';
import { startEphemeralRedis, waitFor, type EphemeralServer } from '@ocg/testing';
import { startClientManager, type Harness, type TestUser } from './harness';

/** Calls per Redis command since the last reset, from INFO commandstats. */
async function commandCounts(redis: Redis): Promise<Record<string, number>> {
  const info = await redis.info('commandstats');
  return Object.fromEntries([...info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)].map(([, name, calls]) => [name, Number(calls)]));
}

describe('the authentication hot path', () => {
  let server: EphemeralServer;
  let admin: Redis;
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    server = await startEphemeralRedis();
    admin = new Redis(server.url);
    cm = await startClientManager({ redisUrl: server.url });
    user = await cm.createUser();
  });
  afterAll(async () => {
    admin.disconnect();
    await cm.close();
    await server.dispose();
  });

  it('answers a warm key with one MGET, no fill and no second lookup', async () => {
    expect((await cm.call('GET', '/credits/balance', { key: user.key })).status).toBe(200);
    await waitFor(async () => (await admin.keys('ocg:auth:apikey:*')).some((k) => !k.endsWith(':gen')), { what: 'cache entry' });
    await new Promise((resolve) => setTimeout(resolve, 200)); // the lastUsedAt write of the first request is done
    await admin.config('RESETSTAT');
    expect((await cm.call('GET', '/credits/balance', { key: user.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200)); // a fill would be fired after the answer
    const counts = await commandCounts(admin);
    expect(counts.mget).toBe(1);
    expect(counts.eval ?? 0).toBe(0);
  });
});

describe('the internal credential when INTERNAL_TOKEN is not configured', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager({ env: { INTERNAL_TOKEN: '', RATE_LIMIT_VALIDATE_PER_MINUTE: '1' } })));
  afterAll(() => cm.close());

  it('exempts no one from the validation rate limit, whatever header is sent', async () => {
    const from = () =>
      cm.call('POST', '/auth/validate-api-key', {
        body: { apiKey: generateApiKey() },
        headers: { 'x-ocg-internal-token': 'anything-at-all-here', 'x-forwarded-for': '192.0.2.9' },
      });
    expect((await from()).status).toBe(200);
    expect((await from()).status).toBe(429);
  });
});
