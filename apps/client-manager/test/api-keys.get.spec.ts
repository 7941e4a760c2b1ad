import { startClientManager, type Harness, type TestUser } from './harness';
import { createKey } from './support/keys';

describe('GET /api-keys/{id}', () => {
  let cm: Harness;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    [alice, bob] = [await cm.createUser(), await cm.createUser()];
  });
  afterAll(() => cm.close());

  it("answers the full record of one of the caller's keys", async () => {
    const made = await createKey(cm, alice.key, { name: 'mine', expiresIn: 3600 });
    const res = await cm.call('GET', `/api-keys/${made.id}`, { key: alice.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: made.id, key: made.key, name: 'mine', status: 'active', lastUsedAt: null });
    expect(res.body.updatedAt).toBe(res.body.createdAt);
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(3_600_000);
  });

  it("answers 404 for another user's key, as for one that does not exist", async () => {
    const other = await cm.call('GET', `/api-keys/${bob.keyId}`, { key: alice.key });
    const missing = await cm.call('GET', '/api-keys/key_1111111111111111111111', { key: alice.key });
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ name: 'NotFoundError', code: 'NOT_FOUND' });
    expect(missing.status).toBe(404);
  });

  it('answers 404 for an id that is not a key id at all', async () => {
    expect((await cm.call('GET', "/api-keys/'%20or%201=1", { key: alice.key })).status).toBe(404);
  });
});
