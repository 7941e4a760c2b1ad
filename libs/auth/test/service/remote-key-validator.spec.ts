import http from 'node:http';
import { Redis } from 'ioredis';
import { freePort, testRedis, waitFor } from '@ocg/testing';
import { apiKeyLookupHash, generateApiKey } from '../../src/api-key';
import { parseInvalidation } from '../../src/service/invalidation';
import { remoteKeyValidator, type RemoteKeyValidator } from '../../src/service/remote-key-validator';

/**
 * Stands in for client-manager's POST /auth/validate-api-key (the seam this
 * validator talks to over HTTP), counting the calls it gets.
 */
function fakeClientManager(active: Map<string, { id: string; userId: string }>) {
  const seen: { body: unknown; internal: unknown }[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c));
    req.on('end', () => {
      const body = JSON.parse(text) as { apiKey: string };
      seen.push({ body, internal: req.headers['x-ocg-internal-token'] });
      const key = active.get(body.apiKey);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(key ? { valid: true, apiKeyId: key.id, scopes: ['markets:read'], user: { id: key.userId, email: 'a@b.c' } } : { valid: false }));
    });
  });
  return { server, seen };
}

describe('remoteKeyValidator', () => {
  const key = generateApiKey();
  const active = new Map([[key, { id: 'key_1', userId: 'usr_1' }]]);
  const { server, seen } = fakeClientManager(active);
  let url: string;
  let redis: Redis;
  let publisher: Redis;
  let validator: RemoteKeyValidator;
  const channel = `test:invalidate:${process.pid}:${Date.now()}`;

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const { url: redisUrl } = await testRedis();
    redis = new Redis(redisUrl);
    publisher = new Redis(redisUrl);
  });

  beforeEach(async () => {
    seen.length = 0;
    active.set(key, { id: 'key_1', userId: 'usr_1' });
    validator = remoteKeyValidator({ clientManagerUrl: url, redis, internalToken: 'tok', invalidationChannel: channel });
    await validator.ready();
  });

  afterEach(() => validator.close());

  afterAll(async () => {
    server.close();
    redis.disconnect();
    publisher.disconnect();
  });

  it('reports the owner, key id and scopes of an active key, sending the internal token', async () => {
    await expect(validator.validate(key)).resolves.toEqual({ apiKeyId: 'key_1', userId: 'usr_1', scopes: ['markets:read'], user: { id: 'usr_1', email: 'a@b.c' } });
    expect(seen).toEqual([{ body: { apiKey: key }, internal: 'tok' }]);
  });

  it('asks client-manager once for repeated and concurrent lookups of one key', async () => {
    await Promise.all([validator.validate(key), validator.validate(key), validator.validate(key)]);
    await validator.validate(key);
    expect(seen).toHaveLength(1);
  });

  it('refuses a malformed key without asking client-manager', async () => {
    await expect(validator.validate('ocg_not-a-key')).resolves.toBeNull();
    expect(seen).toHaveLength(0);
  });

  it('fails a cached key at once when client-manager publishes its id', async () => {
    expect(await validator.validate(key)).not.toBeNull();
    active.delete(key);
    await publisher.publish(channel, JSON.stringify({ keyId: 'key_1' }));
    await waitFor(async () => (await validator.validate(key)) === null, { timeoutMs: 2000, what: 'key invalidated' });
  });

  it('drops a cached key by the lookup hash client-manager publishes with its id', async () => {
    await validator.validate(key);
    active.delete(key);
    await publisher.publish(channel, JSON.stringify({ keyId: 'key_unseen', hash: apiKeyLookupHash(key) }));
    await waitFor(async () => (await validator.validate(key)) === null, { timeoutMs: 2000, what: 'hash invalidated' });
  });

  it('drops every key of a user when the user id is published', async () => {
    await validator.validate(key);
    active.delete(key);
    await publisher.publish(channel, JSON.stringify({ userId: 'usr_1' }));
    await waitFor(async () => (await validator.validate(key)) === null, { timeoutMs: 2000, what: 'user invalidated' });
  });

  it('keeps other cached keys when one key id is published', async () => {
    await validator.validate(key);
    const before = validator.cache.generation;
    await publisher.publish(channel, JSON.stringify({ keyId: 'key_other' }));
    await waitFor(async () => validator.cache.generation > before, { timeoutMs: 2000, what: 'message received' });
    await validator.validate(key);
    expect(seen).toHaveLength(1);
  });

  it('drops every cached answer when "*" is published', async () => {
    await validator.validate(key);
    active.delete(key);
    await publisher.publish(channel, '*');
    await waitFor(async () => (await validator.validate(key)) === null, { timeoutMs: 2000, what: 'everything invalidated' });
  });

  it('re-asks after the cache TTL without any message', async () => {
    let now = 1_000;
    const timed = remoteKeyValidator({ clientManagerUrl: url, cacheTtlMs: 100, now: () => now });
    await timed.validate(key);
    now += 50;
    await timed.validate(key);
    now += 100;
    await timed.validate(key);
    expect(seen).toHaveLength(2);
  });

  it('answers 503 when client-manager does not answer, and caches nothing', async () => {
    const down = remoteKeyValidator({ clientManagerUrl: `http://127.0.0.1:${await freePort()}` });
    await expect(down.validate(key)).rejects.toMatchObject({ status: 503, name: 'ServiceUnavailableError' });
    expect(down.cache.size).toBe(0);
  });
});

describe('parseInvalidation', () => {
  it.each([
    ['key_1', { all: false, keyIds: ['key_1'], hashes: [], userIds: [] }],
    ['"key_1"', { all: false, keyIds: ['key_1'], hashes: [], userIds: [] }],
    ['{"keyId":"key_1","hash":"ab12"}', { all: false, keyIds: ['key_1'], hashes: ['ab12'], userIds: [] }],
    ['{"apiKeyId":"key_1"}', { all: false, keyIds: ['key_1'], hashes: [], userIds: [] }],
    ['{"keyIds":["a","b"],"userId":"u"}', { all: false, keyIds: ['a', 'b'], hashes: [], userIds: ['u'] }],
    ['*', { all: true, keyIds: [], hashes: [], userIds: [] }],
    ['{"all":true}', { all: true, keyIds: [], hashes: [], userIds: [] }],
  ])('reads %s', (text, expected) => {
    expect(parseInvalidation(text)).toEqual(expected);
  });
});

describe('parseInvalidation, liberal reading', () => {
  const none = { all: false, keyIds: [], hashes: [], userIds: [] };
  it.each([
    ['  key_1  ', { ...none, keyIds: ['key_1'] }],
    ['', none],
    ['""', none],
    ['["a", "", 3, "b"]', { ...none, keyIds: ['a', 'b'] }],
    ['null', { ...none, keyIds: ['null'] }],
    ['42', { ...none, keyIds: ['42'] }],
    ['{broken', { ...none, keyIds: ['{broken'] }],
    ['{"hash":"h1","hashes":["h2",""],"userIds":["u1",7],"apiKeyIds":["k2"],"id":"k1"}', { all: false, keyIds: ['k1', 'k2'], hashes: ['h1', 'h2'], userIds: ['u1'] }],
    ['{"all":"yes","keyId":""}', none],
    ['{"keyIds":"not-a-list"}', none],
  ])('reads %j', (text, expected) => {
    expect(parseInvalidation(text)).toEqual(expected);
  });
});
