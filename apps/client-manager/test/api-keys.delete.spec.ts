import { apiKeyLookupHash } from '@ocg/auth';
import { waitFor } from '@ocg/testing';
import { startClientManager, type Harness, type TestUser } from './harness';
import { listenForInvalidations } from './support/events';
import { createKey, validate } from './support/keys';

describe('POST /api-keys/{id}/delete', () => {
  let cm: Harness;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    [alice, bob] = [await cm.createUser(), await cm.createUser()];
  });
  afterAll(() => cm.close());

  const remove = (id: string, key = alice.key) => cm.call('POST', `/api-keys/${id}/delete`, { key });

  it('answers {success: true} and removes the record', async () => {
    const made = await createKey(cm, alice.key);
    const res = await remove(made.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await cm.call('GET', `/api-keys/${made.id}`, { key: alice.key })).status).toBe(404);
    expect(await cm.db.query('SELECT id FROM api_keys WHERE id = $1', [made.id])).toEqual([]);
  });

  it('makes the key fail at once everywhere, even with its validation cached', async () => {
    const made = await createKey(cm, alice.key);
    expect((await validate(cm, made.key)).valid).toBe(true);
    expect((await cm.call('GET', '/api-keys/', { key: made.key })).status).toBe(200);
    await remove(made.id);
    expect(await validate(cm, made.key)).toEqual({ valid: false });
    const res = await cm.call('GET', '/api-keys/', { key: made.key });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/not valid/);
  });

  it('publishes the key id and hash of the deleted key', async () => {
    const made = await createKey(cm, alice.key);
    const listener = await listenForInvalidations(cm);
    try {
      await remove(made.id);
      await waitFor(() => listener.events.length > 0, { what: 'invalidation event' });
      expect(listener.events).toEqual([{ keyId: made.id, hash: apiKeyLookupHash(made.key) }]);
    } finally {
      listener.close();
    }
  });

  it("answers 404 for another user's key and leaves it working", async () => {
    expect((await remove(bob.keyId)).status).toBe(404);
    expect((await validate(cm, bob.key)).valid).toBe(true);
  });

  it('answers 404 the second time', async () => {
    const made = await createKey(cm, alice.key);
    expect((await remove(made.id)).status).toBe(200);
    expect((await remove(made.id)).status).toBe(404);
  });

  it('lets a key delete itself, after which it no longer authenticates', async () => {
    const made = await createKey(cm, alice.key);
    expect((await remove(made.id, made.key)).body).toEqual({ success: true });
    expect((await remove(made.id, made.key)).status).toBe(401);
  });
});
