import { apiKeyLookupHash, generateApiKey } from '@ocg/auth';
import { USER_SCOPES } from '@ocg/contracts';
import { waitFor } from '@ocg/testing';
import { startClientManager, type Harness, type TestUser } from './harness';
import { MEDIA_TYPES } from './support/http';
import { createKey, validate } from './support/keys';
import { userRecordOf } from './support/users';

describe('POST /auth/validate-api-key', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
  });
  afterAll(() => cm.close());

  it('reports a valid key with its user, key id, scopes and expiry', async () => {
    const body = await validate(cm, user.key);
    expect(body).toEqual({
      valid: true,
      user: userRecordOf(user),
      apiKeyId: user.keyId,
      scopes: USER_SCOPES,
      expiresAt: null,
    });
    expect(new Date(body.user.created_at).toISOString()).toBe(body.user.created_at);
  });

  it('answers the same from the warm cache as from Postgres', async () => {
    const { key } = await createKey(cm, user.key);
    const cold = await validate(cm, key);
    await waitFor(async () => (await cm.redis.exists(`ocg:auth:apikey:${apiKeyLookupHash(key)}`)) === 1, { what: 'cache entry' });
    expect(await validate(cm, key)).toEqual(cold);
  });

  it.each([
    ['unknown', () => generateApiKey()],
    ['malformed', () => 'not-a-key'],
    ['checksum-broken', () => `${user.key.slice(0, -1)}${user.key.endsWith('1') ? '2' : '1'}`],
  ])('answers 200 {valid: false} for an %s key', async (_kind, key) => {
    const res = await cm.call('POST', '/auth/validate-api-key', { body: { apiKey: key() } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: false });
  });

  it('answers {valid: false} for a disabled key, and for a deleted key', async () => {
    const disabled = await createKey(cm, user.key);
    const deleted = await createKey(cm, user.key);
    await validate(cm, disabled.key);
    await validate(cm, deleted.key);
    await cm.call('POST', `/api-keys/${disabled.id}/update`, { key: user.key, body: { status: 'disabled' } });
    await cm.call('POST', `/api-keys/${deleted.id}/delete`, { key: user.key });
    expect(await validate(cm, disabled.key)).toEqual({ valid: false });
    expect(await validate(cm, deleted.key)).toEqual({ valid: false });
  });

  it('answers {valid: false} once a key has expired, even from the warm cache', async () => {
    const { key } = await createKey(cm, user.key, { expiresIn: 60 });
    expect((await validate(cm, key)).valid).toBe(true);
    cm.advance(60_000);
    expect(await validate(cm, key)).toEqual({ valid: false });
  });

  it.each(MEDIA_TYPES)('accepts the body as %s', async (type) => {
    expect((await cm.call('POST', '/auth/validate-api-key', { body: { apiKey: user.key }, type })).body.valid).toBe(true);
  });

  it('refuses additional members and a missing apiKey', async () => {
    const extra = await cm.call('POST', '/auth/validate-api-key', { body: { apiKey: user.key, userId: 'x' } });
    expect(extra.status).toBe(400);
    expect(extra.body.errors).toEqual([{ path: '/userId', message: 'is not an allowed member' }]);
    expect((await cm.call('POST', '/auth/validate-api-key', { body: {} })).body.errors).toEqual([expect.objectContaining({ path: '/apiKey' })]);
  });

  it('keeps lastUsedAt current', async () => {
    const { id, key } = await createKey(cm, user.key);
    await validate(cm, key);
    await waitFor(async () => (await cm.db.query('SELECT last_used_at FROM api_keys WHERE id = $1', [id]))[0].last_used_at, { what: 'lastUsedAt' });
  });
});

describe('POST /auth/validate-api-key rate limit', () => {
  let cm: Harness;
  let key: string;
  beforeAll(async () => {
    cm = await startClientManager({ env: { RATE_LIMIT_VALIDATE_PER_MINUTE: '3' } });
    key = generateApiKey();
  });
  afterAll(() => cm.close());

  const from = (headers: Record<string, string>) => cm.call('POST', '/auth/validate-api-key', { body: { apiKey: key }, headers });

  it('answers 429 with Retry-After past the limit for one client address', async () => {
    const client = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 3; i++) expect((await from(client)).status).toBe(200);
    const res = await from(client);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.body).toMatchObject({ name: 'TooManyRequestsError', code: 'RATE_LIMITED' });
  });

  it('counts the address the gateway appended, not the entries a caller forged before it', async () => {
    for (let i = 0; i < 3; i++) expect((await from({ 'x-forwarded-for': `10.0.0.${i}, 198.51.100.9` })).status).toBe(200);
    expect((await from({ 'x-forwarded-for': '10.9.9.9, 198.51.100.9' })).status).toBe(429);
    expect((await from({ 'x-forwarded-for': '198.51.100.10' })).status).toBe(200);
  });

  it('counts only failed validations: a caller validating a real key many times from one address is not throttled', async () => {
    const user = await cm.createUser();
    const caller = { 'x-forwarded-for': '203.0.113.20' };
    const valid = (headers: Record<string, string>) => cm.call('POST', '/auth/validate-api-key', { body: { apiKey: user.key }, headers });
    const answers = await Promise.all(Array.from({ length: 30 }, () => valid(caller)));
    expect(answers.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(answers.every((r) => r.body.valid === true)).toBe(true);
    // Failed ones are still limited, and then the address is refused whatever it sends: a right guess is not told apart.
    for (let i = 0; i < 3; i++) expect((await from(caller)).status).toBe(200);
    expect((await from(caller)).status).toBe(429);
    const blocked = await valid(caller);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await valid({ 'x-forwarded-for': '203.0.113.21' })).status).toBe(200);
  });

  it('does not limit services calling with the internal credential', async () => {
    const service = { 'x-forwarded-for': '203.0.113.7', 'x-ocg-internal-token': cm.internalToken };
    expect((await from(service)).status).toBe(200);
  });
});
