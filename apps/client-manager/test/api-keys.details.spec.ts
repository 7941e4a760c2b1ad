/**
 * The exact answers of key management and validation where the other specs
 * only check the status: the quota error, the scope refusal at index 0, the
 * expiry that validation reports, and the 429 that names the address.
 */
import { generateApiKey } from '@ocg/auth';
import { startClientManager, type Harness, type TestUser } from './harness';
import { createKey, validate } from './support/keys';

describe('key management, in detail', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager({ env: { MAX_API_KEYS_PER_USER: '3' } });
    user = await cm.createUser();
  });
  afterAll(() => cm.close());

  it('reports the expiry of an expiring key as the create answer gave it', async () => {
    const res = await cm.call('POST', '/api-keys/', { key: user.key, body: { name: 'expiring', expiresIn: 3600 } });
    expect(await validate(cm, res.body.key)).toMatchObject({ valid: true, apiKeyId: res.body.id, expiresAt: res.body.expiresAt });
  });

  it('refuses at index 0 a first scope the caller lacks', async () => {
    const res = await cm.call('POST', '/api-keys/', { key: user.key, body: { name: 'x', scopes: ['users:manage', 'wallet:sign'] } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      message: 'The calling credential does not hold the scope users:manage; a new key may only hold scopes its creator holds',
      errors: [{ path: '/scopes/0', message: 'is not held by the calling credential' }],
    });
  });

  it('does not count the system key against the quota, and names the limit when it is reached', async () => {
    await cm.services.keys.systemKeyFor(user.id);
    await createKey(cm, user.key); // with the first key and the expiring one: three
    const res = await cm.call('POST', '/api-keys/', { key: user.key, body: { name: 'fourth' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      message: 'API key limit reached: a user holds at most 3 keys (MAX_API_KEYS_PER_USER); delete one first',
      errors: [{ path: '', message: 'over the limit of 3 API keys per user' }],
    });
  });

  it('lists keys oldest first and deletes only the one named', async () => {
    const other = await cm.createUser();
    const made = [await createKey(cm, other.key, { name: 'a' }), await createKey(cm, other.key, { name: 'b' })];
    const ids = (await cm.call('GET', '/api-keys/', { key: other.key })).body.keys.map((k: { id: string }) => k.id);
    expect(ids).toEqual([other.keyId, made[0].id, made[1].id]);
    expect((await cm.call('POST', `/api-keys/${made[0].id}/delete`, { key: other.key })).body).toEqual({ success: true });
    const after = await cm.call('GET', '/api-keys/', { key: other.key });
    expect(after.body).toMatchObject({ total: 2, keys: [{ id: other.keyId }, { id: made[1].id }] });
    expect((await validate(cm, made[1].key)).valid).toBe(true);
  });

  it('answers 404 for a key id of the wrong shape', async () => {
    const res = await cm.call('GET', '/api-keys/not-a-key-id', { key: user.key });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('No API key not-a-key-id');
  });
});

describe('validate-api-key rate limit, in detail', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager({ env: { RATE_LIMIT_VALIDATE_PER_MINUTE: '1' } })));
  afterAll(() => cm.close());

  it('names the client address in the 429', async () => {
    const from = () => cm.call('POST', '/auth/validate-api-key', { body: { apiKey: generateApiKey() }, headers: { 'x-forwarded-for': '192.0.2.44' } });
    expect((await from()).status).toBe(200);
    const res = await from();
    expect(res.status).toBe(429);
    expect(res.body.message).toMatch(/^Too many validate-api-key requests from 192\.0\.2\.44: /);
  });
});
