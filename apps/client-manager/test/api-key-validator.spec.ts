/**
 * The validator and the system key on clocks of the test's own, against the
 * app's Postgres and Redis: the exact expiry instant, which store answers, and
 * the verdict for each kind of failure.
 */
import { apiKeyLookupHash, generateApiKey } from '@ocg/auth';
import { USER_SCOPES } from '@ocg/contracts';
import { createLogger } from '@ocg/http';
import { redisKeys } from '@ocg/redis';
import { sleep, waitFor } from '@ocg/testing';
import { ApiKeyRepository } from '../src/api-keys/api-key.repository';
import { masterKeyOf } from '../src/config';
import { ApiKeyCache } from '../src/validation/api-key-cache';
import { ApiKeyService } from '../src/api-keys/api-key.service';
import { ApiKeyValidator } from '../src/validation/api-key-validator';
import type { Clock } from '../src/shared/clock';
import { LastUsedTracker } from '../src/validation/last-used';
import { Secrets } from '../src/shared/secrets';
import { UserRepository } from '../src/users/user.repository';
import { startClientManager, type Harness, type TestUser } from './harness';
import { createKey } from './support/keys';
import { userRecordOf } from './support/users';

const silent = createLogger({ service: 'test', level: 'silent' });
const cacheKey = (key: string) => redisKeys.apiKeyCache(apiKeyLookupHash(key));

describe('ApiKeyValidator', () => {
  let cm: Harness;
  let user: TestUser;
  let cache: ApiKeyCache;
  const validatorAt = (clock: Clock) => new ApiKeyValidator(new ApiKeyRepository(cm.db), cache, new LastUsedTracker(new ApiKeyRepository(cm.db), cm.redis, clock, silent), clock);
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
    cache = new ApiKeyCache(cm.redis, 60, silent);
  });
  afterAll(() => cm.close());

  it('answers the key, its user, scopes and expiry', async () => {
    const check = await validatorAt(Date.now).check(user.key);
    expect(check).toEqual({ ok: true, key: { keyId: user.keyId, userId: user.id, scopes: USER_SCOPES, user: userRecordOf(user), expiresAt: null } });
  });

  it('is valid until the instant of expiry, not at it, cold and from the cache', async () => {
    const made = await createKey(cm, user.key, { expiresIn: 600 });
    const [{ expires_at: at }] = await cm.db.query('SELECT expires_at FROM api_keys WHERE id = $1', [made.id]);
    const expiry = (at as Date).getTime();
    const before = await validatorAt(() => expiry - 1).check(made.key);
    expect(before).toMatchObject({ ok: true, key: { keyId: made.id, expiresAt: expiry } });
    await waitFor(async () => (await cm.redis.exists(cacheKey(made.key))) === 1, { what: 'cache entry' });
    expect(await validatorAt(() => expiry - 1).check(made.key)).toMatchObject({ ok: true });
    expect(await validatorAt(() => expiry).check(made.key)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each([
    ['malformed', () => 'ocg_short'],
    ['unknown', () => generateApiKey()],
  ])('answers %s', async (reason, key) => {
    expect(await validatorAt(Date.now).check(key())).toEqual({ ok: false, reason });
  });

  it('answers disabled for a disabled key', async () => {
    const made = await createKey(cm, user.key);
    await cm.call('POST', `/api-keys/${made.id}/update`, { key: user.key, body: { status: 'disabled' } });
    expect(await validatorAt(Date.now).check(made.key)).toEqual({ ok: false, reason: 'disabled' });
  });

  it('never looks a malformed key up', async () => {
    await validatorAt(Date.now).check('ocg_short');
    await sleep(50);
    expect(await cm.redis.exists(cacheKey('ocg_short'))).toBe(0);
  });

  it('answers a warm key from the cache, without Postgres', async () => {
    const made = await createKey(cm, user.key, { scopes: ['wallet:sign'] });
    await validatorAt(Date.now).check(made.key);
    await waitFor(async () => (await cm.redis.exists(cacheKey(made.key))) === 1, { what: 'cache entry' });
    // Changed behind the service's back (no invalidation): the cached answer stands until its TTL.
    await cm.db.query(`UPDATE api_keys SET scopes = '{credits:read}' WHERE id = $1`, [made.id]);
    expect(await validatorAt(Date.now).check(made.key)).toMatchObject({ ok: true, key: { scopes: ['wallet:sign'] } });
  });

  it('does not refill on a hit, so an entry never outlives its TTL while in use', async () => {
    const made = await createKey(cm, user.key);
    await validatorAt(Date.now).check(made.key);
    await waitFor(async () => (await cm.redis.exists(cacheKey(made.key))) === 1, { what: 'cache entry' });
    await cm.redis.expire(cacheKey(made.key), 20);
    await validatorAt(Date.now).check(made.key);
    await sleep(100);
    expect(await cm.redis.ttl(cacheKey(made.key))).toBeLessThanOrEqual(20);
  });

  it('caches unknown keys too', async () => {
    const text = generateApiKey();
    await validatorAt(Date.now).check(text);
    await waitFor(async () => (await cm.redis.exists(cacheKey(text))) === 1, { what: 'cache entry' });
    expect(JSON.parse((await cm.redis.get(cacheKey(text)))!)).toEqual({ found: false });
    await cm.db.transaction((m) => cm.services.keys.mint(m, { userId: user.id, name: 'late', scopes: ['wallet:sign'], text }));
    expect(await validatorAt(Date.now).check(text)).toEqual({ ok: false, reason: 'unknown' });
  });
});

describe('ApiKeyService.systemKeyFor', () => {
  let cm: Harness;
  const serviceAt = (clock: Clock) =>
    new ApiKeyService(new ApiKeyRepository(cm.db), new UserRepository(cm.db), new Secrets(masterKeyOf(cm.config)), new ApiKeyCache(cm.redis, 60, silent), clock);
  beforeAll(async () => (cm = await startClientManager()));
  afterAll(() => cm.close());

  const systemRows = async (userId: string) => cm.db.query('SELECT id, system FROM api_keys WHERE user_id = $1 AND name = $2 ORDER BY created_at', [userId, 'system']);

  it('mints one system key with every user scope, whoever asks first', async () => {
    const user = await cm.createUser();
    const texts = await Promise.all(Array.from({ length: 5 }, () => serviceAt(Date.now).systemKeyFor(user.id)));
    expect(new Set(texts).size).toBe(1);
    expect(await systemRows(user.id)).toEqual([{ id: expect.any(String), system: true }]);
    const [{ scopes }] = await cm.db.query('SELECT scopes FROM api_keys WHERE user_id = $1 AND system', [user.id]);
    expect(scopes).toEqual(USER_SCOPES);
  });

  it('keeps the system key until the instant it expires, then moves the flag to a fresh one', async () => {
    const user = await cm.createUser();
    const first = await serviceAt(Date.now).systemKeyFor(user.id);
    const expiry = Date.now() + 3_600_000;
    await cm.db.query('UPDATE api_keys SET expires_at = $2 WHERE user_id = $1 AND system', [user.id, new Date(expiry)]);
    expect(await serviceAt(() => expiry - 1).systemKeyFor(user.id)).toBe(first);
    const second = await serviceAt(() => expiry).systemKeyFor(user.id);
    expect(second).not.toBe(first);
    expect((await systemRows(user.id)).map((r: { system: boolean }) => r.system)).toEqual([false, true]);
    expect(await serviceAt(() => expiry).systemKeyFor(user.id)).toBe(second);
  });
});
