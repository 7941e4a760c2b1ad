/**
 * Redis down never makes a request hang and never gives a wrong answer:
 * API keys are validated against Postgres (the cache is skipped), rate limits
 * let requests through, and a disabled key stays refused.
 */
import { startEphemeralRedis, waitFor, type EphemeralServer } from '@ocg/testing';
import { startClientManager, type Harness, type TestUser } from './harness';

describe('client-manager while Redis is down', () => {
  let redis: EphemeralServer;
  let cm: Harness;
  let user: TestUser;
  let disabled: TestUser;

  beforeAll(async () => {
    redis = await startEphemeralRedis();
    cm = await startClientManager({ redisUrl: redis.url });
    user = await cm.createUser();
    disabled = await cm.createUser();
    expect((await cm.call('POST', `/api-keys/${disabled.keyId}/update`, { key: disabled.key, body: { status: 'disabled' } })).status).toBe(200);
    // Both answers cached in Redis before the outage.
    for (const u of [user, disabled]) await cm.call('POST', '/auth/validate-api-key', { body: { apiKey: u.key } });
    await redis.stop();
    await new Promise((r) => setTimeout(r, 4000)); // the client's reconnect backoff has grown by now
  }, 60_000);

  afterAll(async () => {
    await cm?.close();
    await redis?.dispose();
  });

  const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const started = Date.now();
    const result = await fn();
    return [result, Date.now() - started];
  };

  it('validates an API key against Postgres, at once', async () => {
    const [res, ms] = await timed(() => cm.call('POST', '/auth/validate-api-key', { body: { apiKey: user.key } }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, user: { id: user.id } });
    expect(ms).toBeLessThan(1000);
  });

  it('still refuses a disabled key', async () => {
    const res = await cm.call('POST', '/auth/validate-api-key', { body: { apiKey: disabled.key } });
    expect(res.body.valid).toBe(false);
  });

  it('serves a route behind the key, at once, ten times in a row', async () => {
    const [answers, ms] = await timed(() => Promise.all(Array.from({ length: 10 }, () => cm.call('GET', '/credits/balance', { key: user.key }))));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(ms).toBeLessThan(1500);
  });

  it('reports Redis down in /readyz and serves again from the cache once Redis is back', async () => {
    expect((await cm.call('GET', '/readyz')).status).toBe(503);
    await redis.start();
    await waitFor(async () => (await cm.call('GET', '/readyz')).status === 200, { timeoutMs: 10_000, what: 'readiness' });
    expect((await cm.call('POST', '/auth/validate-api-key', { body: { apiKey: user.key } })).body.valid).toBe(true);
  });
});
