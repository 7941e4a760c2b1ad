import { USER_SCOPES } from '@ocg/contracts';
import { startClientManager, type Harness } from './harness';
import { MEDIA_TYPES, chars } from './support/http';
import { validate } from './support/keys';

describe('POST /users', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager()));
  afterAll(() => cm.close());

  const create = (body: unknown, key = cm.adminKey, type?: 'json' | 'text' | 'multipart') => cm.call('POST', '/users', { key, body, type });

  it('creates a local user with a wallet, and a first key holding every user scope and no operator scope', async () => {
    const res = await create({ email: 'ada@example.com', name: 'Ada' });
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({
      id: expect.stringMatching(/^usr_/),
      legacyUserId: null,
      email: 'ada@example.com',
      name: 'Ada',
      provider: 'local',
      providerUsername: null,
      generatedAddress: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/),
      created_at: expect.any(String),
    });
    expect(Object.keys(res.body.apiKey)).toEqual(['llmModels', 'key', 'id', 'name', 'status', 'scopes', 'expiresAt', 'createdAt']);
    expect(res.body.apiKey.scopes).toEqual(USER_SCOPES);
    expect(await validate(cm, res.body.apiKey.key)).toMatchObject({ valid: true, user: { id: res.body.user.id } });
  });

  it('keeps the wallet seed sealed and the password as an argon2id hash', async () => {
    const res = await create({ email: 'bob@example.com', name: 'Bob', password: 'correct horse battery' });
    const [row] = await cm.db.query('SELECT wallet_seed_sealed, password_hash FROM users WHERE id = $1', [res.body.user.id]);
    expect(row.wallet_seed_sealed).toMatch(/^v1\./);
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(res.body)).not.toMatch(/password|seed|sealed/i);
  });

  it('answers 409 for an email that exists in any letter case', async () => {
    await create({ email: 'case@example.com', name: 'A' });
    const res = await create({ email: 'CASE@Example.com', name: 'B' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ name: 'ConflictError', code: 'CONFLICT', errors: [{ path: '/email', message: 'is taken' }] });
  });

  it.each(MEDIA_TYPES)('accepts the body as %s', async (type) => {
    expect((await create({ email: `${type}@example.com`, name: type }, cm.adminKey, type)).status).toBe(200);
  });

  it.each([
    ['an email without @', { email: 'nobody', name: 'x' }, '/email'],
    ['a name of 0 characters', { email: 'n0@example.com', name: '' }, '/name'],
    ['a name of 101 characters', { email: 'n101@example.com', name: chars(101) }, '/name'],
    ['a 7-character password', { email: 'p7@example.com', name: 'x', password: 'seven77' }, '/password'],
    ['an additional member', { email: 'x@example.com', name: 'x', admin: true }, '/admin'],
  ])('refuses %s', async (_what, body, path) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path })]);
  });

  it("answers 403 for a user's key: creating users takes users:manage", async () => {
    const user = await cm.createUser();
    const res = await create({ email: 'eve@example.com', name: 'Eve' }, user.key);
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('users:manage');
  });

  it('answers 401 without a credential', async () => {
    expect((await cm.call('POST', '/users', { body: { email: 'x@example.com', name: 'x' } })).status).toBe(401);
  });
});
