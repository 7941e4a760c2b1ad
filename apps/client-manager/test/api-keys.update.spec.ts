import { apiKeyLookupHash } from '@ocg/auth';
import { waitFor } from '@ocg/testing';
import { startClientManager, type Harness, type TestUser } from './harness';
import { chars } from './support/http';
import { listenForInvalidations } from './support/events';
import { createKey, validate } from './support/keys';

describe('POST /api-keys/{id}/update', () => {
  let cm: Harness;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    [alice, bob] = [await cm.createUser(), await cm.createUser()];
  });
  afterAll(() => cm.close());

  const update = (id: string, body: unknown, key = alice.key) => cm.call('POST', `/api-keys/${id}/update`, { key, body });

  it('renames and restricts models, answering the full record with a new updatedAt', async () => {
    const made = await createKey(cm, alice.key);
    cm.advance(5000);
    const res = await update(made.id, { name: 'renamed', llmModels: ['llama3'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: made.id, key: made.key, name: 'renamed', llmModels: ['llama3'], status: 'active' });
    expect(Date.parse(res.body.updatedAt) - Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(5000);
    expect((await update(made.id, { llmModels: null })).body.llmModels).toBeNull();
  });

  it('changes nothing but updatedAt for an empty body', async () => {
    const made = await createKey(cm, alice.key, { name: 'same' });
    expect((await update(made.id, {})).body).toMatchObject({ name: 'same', status: 'active', llmModels: null });
  });

  it('disables a key so that it fails at once, even with its validation cached, and enables it again at once', async () => {
    const made = await createKey(cm, alice.key);
    expect((await validate(cm, made.key)).valid).toBe(true); // now cached in Redis
    expect(await cm.redis.exists(`ocg:auth:apikey:${apiKeyLookupHash(made.key)}`)).toBe(1);
    expect((await update(made.id, { status: 'disabled' })).body.status).toBe('disabled');
    expect(await validate(cm, made.key)).toEqual({ valid: false });
    expect((await cm.call('GET', '/api-keys/', { key: made.key })).status).toBe(401);
    expect((await update(made.id, { status: 'active' })).body.status).toBe('active');
    expect((await validate(cm, made.key)).valid).toBe(true);
  });

  it('publishes the key id and hash so other services drop their cached validation', async () => {
    const made = await createKey(cm, alice.key);
    const listener = await listenForInvalidations(cm);
    try {
      await update(made.id, { status: 'disabled' });
      await waitFor(() => listener.events.length > 0, { what: 'invalidation event' });
      expect(listener.events).toEqual([{ keyId: made.id, hash: apiKeyLookupHash(made.key) }]);
    } finally {
      listener.close();
    }
  });

  it.each([0, 101])('refuses a name of %i characters', async (n) => {
    const res = await update(alice.keyId, { name: chars(n) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/name' })]);
  });

  it.each([1, 100])('accepts a name of %i characters', async (n) => {
    expect((await update(alice.keyId, { name: chars(n) })).body.name).toBe(chars(n));
  });

  it('refuses a status other than active and disabled', async () => {
    const res = await update(alice.keyId, { status: 'expired' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/status' })]);
  });

  it('refuses 101 models, a duplicate model and a 129-character model', async () => {
    for (const llmModels of [Array.from({ length: 101 }, (_, i) => `m${i}`), ['a', 'a'], [chars(129)]]) {
      expect((await update(alice.keyId, { llmModels })).status).toBe(400);
    }
  });

  it('refuses to change scopes: they are fixed at creation', async () => {
    const res = await update(alice.keyId, { scopes: ['wallet:sign'] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/scopes', message: 'is not an allowed member' }]);
  });

  it("answers 404 for another user's key and leaves it untouched", async () => {
    const res = await update(bob.keyId, { status: 'disabled' });
    expect(res.status).toBe(404);
    expect((await validate(cm, bob.key)).valid).toBe(true);
  });
});
