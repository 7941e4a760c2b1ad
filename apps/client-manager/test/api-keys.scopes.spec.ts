import { generateApiKey } from '@ocg/auth';
import { createLogger } from '@ocg/http';
import { startServices } from '../src/app';
import { startClientManager, type Harness, type TestUser } from './harness';
import { createKey, validate } from './support/keys';

describe("what a credential may read of its user's other keys", () => {
  let cm: Harness;
  let alice: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    alice = await cm.createUser();
  });
  afterAll(() => cm.close());

  it('masks a broader key to a narrower credential, and says so', async () => {
    const narrow = await createKey(cm, alice.key, { name: 'narrow', scopes: ['api-keys:manage'] });
    const list = await cm.call('GET', '/api-keys/', { key: narrow.key });
    const first = list.body.keys.find((k: { id: string }) => k.id === alice.keyId);
    expect(first.masked).toBe(true);
    expect(first.key).not.toBe(alice.key);
    expect(first.key).toBe(`${alice.key.slice(0, 8)}…${alice.key.slice(-4)}`);
    const itself = list.body.keys.find((k: { id: string }) => k.id === narrow.id);
    expect(itself).toMatchObject({ key: narrow.key, masked: false });
    expect((await cm.call('GET', `/api-keys/${alice.keyId}`, { key: narrow.key })).body).toMatchObject({ masked: true, key: first.key });
    const updated = await cm.call('POST', `/api-keys/${alice.keyId}/update`, { key: narrow.key, body: { name: 'renamed' } });
    expect(updated.body).toMatchObject({ masked: true, key: first.key, name: 'renamed' });
    expect(JSON.stringify(list.body) + JSON.stringify(updated.body)).not.toContain(alice.key);
  });

  it('shows the full text to a credential holding every scope of the key', async () => {
    const narrow = await createKey(cm, alice.key, { name: 'narrow too', scopes: ['api-keys:manage'] });
    const res = await cm.call('GET', `/api-keys/${narrow.id}`, { key: alice.key });
    expect(res.body).toMatchObject({ key: narrow.key, masked: false });
  });

  it('bounds the keys a user holds, naming the limit', async () => {
    const limited = await startClientManager({ env: { MAX_API_KEYS_PER_USER: '2' } });
    try {
      const bob = await limited.createUser(); // the first key is one of the two
      await createKey(limited, bob.key);
      const third = await limited.call('POST', '/api-keys/', { key: bob.key, body: { name: 'third' } });
      expect(third.status).toBe(409);
      expect(third.body).toMatchObject({ name: 'QuotaExceededError', code: 'QUOTA_EXCEEDED' });
      expect(third.body.message).toContain('MAX_API_KEYS_PER_USER');
    } finally {
      await limited.close();
    }
  });
});

describe('the bootstrap admin key', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager({ env: { ADMIN_EMAIL: 'ops-list@example.com' } })));
  afterAll(() => cm.close());

  it("never appears in a user's list, even the operator's", async () => {
    const mine = await createKey(cm, cm.adminKey, { name: 'operator key' });
    const list = await cm.call('GET', '/api-keys/', { key: cm.adminKey });
    expect(list.body.keys.map((k: { id: string }) => k.id)).toEqual([mine.id]);
    expect(JSON.stringify(list.body)).not.toContain(cm.adminKey);
    const { apiKeyId } = await validate(cm, cm.adminKey);
    expect((await cm.call('GET', `/api-keys/${apiKeyId}`, { key: mine.key })).status).toBe(404);
  });

  it('stays deleted across restarts; only a new ADMIN_API_KEY makes another', async () => {
    const { apiKeyId } = await validate(cm, cm.adminKey);
    expect((await cm.call('POST', `/api-keys/${apiKeyId}/delete`, { key: cm.adminKey })).status).toBe(200);
    expect((await validate(cm, cm.adminKey)).valid).toBe(false);
    await startServices({ logger: createLogger({ service: 'test', level: 'silent' }), db: cm.db, redis: cm.redis, config: cm.config });
    expect((await validate(cm, cm.adminKey)).valid).toBe(false);
    const fresh = generateApiKey();
    await startServices({ logger: createLogger({ service: 'test', level: 'silent' }), db: cm.db, redis: cm.redis, config: { ...cm.config, ADMIN_API_KEY: fresh } });
    expect((await validate(cm, fresh)).valid).toBe(true);
  });
});
