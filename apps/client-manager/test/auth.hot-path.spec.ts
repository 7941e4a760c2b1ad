/**
 * What one authenticated request costs Redis, counted on a Redis of the
 * test's own, with two instances of client-manager on it: a key an instance
 * remembers costs no Redis command at all; one it does not (but Redis has)
 * costs one MGET and no write, even though tsoa asks both security
 * alternatives (API key, access token) for a verdict. What an instance
 * remembers goes as soon as another instance invalidates the key, long
 * before its memory TTL (an hour here).
 */
import { Redis } from 'ioredis';
import { apiKeyLookupHash, generateApiKey } from '@ocg/auth';
import { startEphemeralRedis, waitFor, type EphemeralServer } from '@ocg/testing';
import { startClientManager, type Harness, type TestUser } from './harness';
import { createKey, validate } from './support/keys';

/** Calls per Redis command since the last reset, from INFO commandstats. */
async function commandCounts(redis: Redis): Promise<Record<string, number>> {
  const info = await redis.info('commandstats');
  return Object.fromEntries([...info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)].map(([, name, calls]) => [name, Number(calls)]));
}

/** The commands the services sent, without the test's own INFO and CONFIG RESETSTAT. */
async function serviceCommands(redis: Redis): Promise<Record<string, number>> {
  return Object.fromEntries(Object.entries(await commandCounts(redis)).filter(([name]) => name !== 'info' && !name.startsWith('config')));
}

const MEMORY_TTL_SECONDS = 3600;

describe('the authentication hot path', () => {
  let server: EphemeralServer;
  let admin: Redis;
  let cm: Harness;
  /** A second instance on the same Postgres and Redis. */
  let other: Harness;
  let user: TestUser;
  beforeAll(async () => {
    server = await startEphemeralRedis();
    admin = new Redis(server.url);
    const env = { API_KEY_MEMORY_TTL_SECONDS: String(MEMORY_TTL_SECONDS) };
    cm = await startClientManager({ redisUrl: server.url, env });
    other = await startClientManager({ redisUrl: server.url, databaseUrl: cm.config.DATABASE_URL, env: { ...env, ADMIN_API_KEY: cm.adminKey } });
    await Promise.all([cm.services.memory.ready(), other.services.memory.ready()]);
    user = await cm.createUser();
  });
  afterAll(async () => {
    admin.disconnect();
    await other.close();
    await cm.close();
    await server.dispose();
  });

  it('answers a key this instance remembers with no Redis command at all', async () => {
    expect((await cm.call('GET', '/credits/balance', { key: user.key })).status).toBe(200);
    await waitFor(async () => (await admin.keys('ocg:auth:apikey:*')).some((k) => !k.endsWith(':gen')), { what: 'cache entry' });
    await new Promise((resolve) => setTimeout(resolve, 200)); // the lastUsedAt write of the first request is done
    await admin.config('RESETSTAT');
    expect((await cm.call('GET', '/credits/balance', { key: user.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200)); // a fill would be fired after the answer
    expect(await serviceCommands(admin)).toEqual({});
  });

  it('answers a key only Redis has with one MGET, no fill and no second lookup, then from memory', async () => {
    await admin.config('RESETSTAT');
    expect((await other.call('GET', '/credits/balance', { key: user.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200)); // a fill would be fired after the answer
    const counts = await commandCounts(admin);
    expect(counts.mget).toBe(1);
    expect(counts.eval ?? 0).toBe(0);
    expect((await other.call('GET', '/credits/balance', { key: user.key })).status).toBe(200);
    expect((await commandCounts(admin)).mget).toBe(1);
  });

  it.each([
    ['disabled', (h: Harness, id: string) => h.call('POST', `/api-keys/${id}/update`, { key: user.key, body: { status: 'disabled' } })],
    ['deleted', (h: Harness, id: string) => h.call('POST', `/api-keys/${id}/delete`, { key: user.key })],
  ])('refuses a key %s on the other instance at once, though this one remembered it', async (_change, change) => {
    const made = await createKey(cm, user.key);
    expect((await validate(other, made.key)).valid).toBe(true);
    expect(other.services.memory.get(apiKeyLookupHash(made.key))).toMatchObject({ keyId: made.id });
    expect((await change(cm, made.id)).status).toBe(200);
    await waitFor(async () => (await validate(other, made.key)).valid === false, { timeoutMs: 5000, what: 'the other instance to refuse the key' });
    expect(other.services.memory.get(apiKeyLookupHash(made.key))).toBeUndefined();
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
