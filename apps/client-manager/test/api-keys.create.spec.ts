import { SCOPE_CATALOG, USER_SCOPES } from '@ocg/contracts';
import { startClientManager, type Harness, type TestUser } from './harness';
import { MEDIA_TYPES, chars } from './support/http';
import { createKey } from './support/keys';

describe('POST /api-keys/', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
  });
  afterAll(() => cm.close());

  const create = (body: unknown, type?: 'json' | 'text' | 'multipart') => cm.call('POST', '/api-keys/', { key: user.key, body, type });

  it('answers exactly llmModels, key, id, name, status, scopes, expiresAt, createdAt', async () => {
    const res = await create({ name: 'ci' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['llmModels', 'key', 'id', 'name', 'status', 'scopes', 'expiresAt', 'createdAt']);
    expect(res.body).toMatchObject({ llmModels: null, name: 'ci', status: 'active', expiresAt: null });
    expect(res.body.key).toMatch(/^ocg_[1-9A-HJ-NP-Za-km-z]{50}$/);
    expect(res.body.id).toMatch(/^key_/);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
  });

  it("gives the new key all of the caller's scopes by default", async () => {
    expect((await create({ name: 'all' })).body.scopes).toEqual(USER_SCOPES);
  });

  it('makes a key that authenticates with exactly the scopes asked for', async () => {
    const { key } = await createKey(cm, user.key, { scopes: ['wallet:sign'] });
    expect((await cm.call('POST', '/auth/sign-message/external', { key, body: { message: 'hi' } })).status).toBe(200);
    expect((await cm.call('GET', '/api-keys/', { key })).status).toBe(403);
  });

  it.each(MEDIA_TYPES)('accepts the body as %s', async (type) => {
    const res = await create({ name: 'typed', scopes: ['credits:read'], expiresIn: 60, llmModels: ['llama3'] }, type);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'typed', scopes: ['credits:read'], llmModels: ['llama3'] });
  });

  describe('name', () => {
    it.each([1, 100])('accepts %i characters', async (n) => {
      expect((await create({ name: chars(n) })).status).toBe(200);
    });
    it.each([0, 101])('refuses %i characters with 400 naming /name', async (n) => {
      const res = await create({ name: chars(n) });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: '/name' })]);
    });
    it('is required', async () => {
      expect((await create({})).body.errors).toEqual([expect.objectContaining({ path: '/name' })]);
    });
  });

  describe('expiresIn', () => {
    it.each([1, 31536000])('accepts %i seconds and sets expiresAt that far after createdAt', async (seconds) => {
      const res = await create({ name: 'x', expiresIn: seconds });
      expect(res.status).toBe(200);
      expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(seconds * 1000);
    });
    it.each([0, 31536001, 1.5, -1])('refuses %p with 400 naming /expiresIn', async (seconds) => {
      const res = await create({ name: 'x', expiresIn: seconds });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: '/expiresIn' })]);
    });
  });

  describe('scopes', () => {
    it('refuses an empty list', async () => {
      expect((await create({ name: 'x', scopes: [] })).body.errors).toEqual([expect.objectContaining({ path: '/scopes' })]);
    });
    it('refuses an unknown scope with 400 naming its index', async () => {
      const res = await create({ name: 'x', scopes: ['wallet:sign', 'root'] });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: '/scopes/1' })]);
    });
    it('refuses the same scope twice', async () => {
      expect((await create({ name: 'x', scopes: ['wallet:sign', 'wallet:sign'] })).status).toBe(400);
    });
    it('refuses with 403 a scope the calling key does not hold, naming it', async () => {
      const res = await create({ name: 'x', scopes: ['wallet:sign', 'users:manage'] });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ name: 'ForbiddenError', code: 'FORBIDDEN', errors: [{ path: '/scopes/1', message: expect.any(String) }] });
      expect(res.body.message).toContain('users:manage');
    });
    it('lets a narrowed key mint only within its own scopes', async () => {
      const narrow = await createKey(cm, user.key, { scopes: ['api-keys:manage', 'credits:read'] });
      expect((await cm.call('POST', '/api-keys/', { key: narrow.key, body: { name: 'y' } })).body.scopes).toEqual(['api-keys:manage', 'credits:read']);
      const res = await cm.call('POST', '/api-keys/', { key: narrow.key, body: { name: 'y', scopes: ['wallet:sign'] } });
      expect(res.status).toBe(403);
      expect(res.body.message).toContain('wallet:sign');
    });
    it('lets the operator key grant any scope of the catalog', async () => {
      const res = await cm.call('POST', '/api-keys/', { key: cm.adminKey, body: { name: 'ops', scopes: SCOPE_CATALOG.map((s) => s.scope) } });
      expect(res.status).toBe(200);
    });
  });

  describe('llmModels', () => {
    it('accepts null, an empty list, and 100 unique names of 128 characters', async () => {
      expect((await create({ name: 'x', llmModels: null })).body.llmModels).toBeNull();
      expect((await create({ name: 'x', llmModels: [] })).body.llmModels).toEqual([]);
      const hundred = Array.from({ length: 100 }, (_, i) => `${i}`.padStart(128, 'm'));
      expect((await create({ name: 'x', llmModels: hundred })).body.llmModels).toEqual(hundred);
    });
    it('refuses 101 names', async () => {
      const res = await create({ name: 'x', llmModels: Array.from({ length: 101 }, (_, i) => `m${i}`) });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: '/llmModels' })]);
    });
    it('refuses a duplicate name', async () => {
      const res = await create({ name: 'x', llmModels: ['llama3', 'llama3'] });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: '/llmModels' })]);
    });
    // llmModels is `list | null`, so tsoa reports the union at /llmModels, its item's problem in the message.
    it('refuses an empty name, saying which item and why', async () => {
      const res = await create({ name: 'x', llmModels: ['ok', ''] });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: '/llmModels', message: expect.stringContaining('minLength 1') }]);
      expect(res.body.errors[0].message).toContain('llmModels.$1');
    });

    // Lengths are checked before validation (libs/http's request check), at the item itself.
    it('refuses a name of 129 characters at the item', async () => {
      const res = await create({ name: 'x', llmModels: ['ok', chars(129)] });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: '/llmModels/1', message: 'must be at most 128 characters long' }]);
    });
  });

  it('refuses members the spec does not list', async () => {
    const res = await create({ name: 'x', admin: true });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/admin', message: 'is not an allowed member' }]);
  });

  it('stores the key sealed with its SHA-256 lookup hash, never as text', async () => {
    const { id, key } = await createKey(cm, user.key);
    const [row] = await cm.db.query('SELECT * FROM api_keys WHERE id = $1', [id]);
    expect(JSON.stringify(row)).not.toContain(key);
    expect(row.key_sealed).toMatch(/^v1\./);
    expect(row.lookup_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
