import { waitFor } from '@ocg/testing';
import { startClientManager, type Harness, type TestUser } from './harness';
import { createKey } from './support/keys';

describe('GET /api-keys/', () => {
  let cm: Harness;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    [alice, bob] = [await cm.createUser(), await cm.createUser()];
  });
  afterAll(() => cm.close());

  it('answers {keys, total} with full records, oldest first, the key text included', async () => {
    const made = await createKey(cm, alice.key, { name: 'second', llmModels: ['m'] });
    const res = await cm.call('GET', '/api-keys/', { key: alice.key });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.keys.map((k: { id: string }) => k.id)).toEqual([alice.keyId, made.id]);
    const record = res.body.keys[1];
    expect(Object.keys(record).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'key', 'lastUsedAt', 'llmModels', 'masked', 'name', 'scopes', 'status', 'updatedAt']);
    expect(record).toMatchObject({ id: made.id, key: made.key, masked: false, name: 'second', llmModels: ['m'], status: 'active', lastUsedAt: null, expiresAt: null });
  });

  it('also answers at /api-keys without the trailing slash', async () => {
    expect((await cm.call('GET', '/api-keys', { key: alice.key })).body.total).toBe(2);
  });

  it("shows only the caller's own keys", async () => {
    const res = await cm.call('GET', '/api-keys/', { key: bob.key });
    expect(res.body.keys.map((k: { id: string }) => k.id)).toEqual([bob.keyId]);
  });

  it('reports when a key was last used', async () => {
    const lastUsed = async () => (await cm.call('GET', '/api-keys/', { key: bob.key })).body.keys[0].lastUsedAt;
    await waitFor(async () => (await lastUsed()) !== null, { what: 'lastUsedAt' });
    expect(Date.parse(await lastUsed())).toBeGreaterThan(Date.now() - 60_000);
  });
});
