/**
 * What the remote validator makes of client-manager's answers (body and
 * status), and identityOf, the accessor every controller uses.
 */
import http from 'node:http';
import { generateApiKey } from '../../src/api-key';
import { identityOf } from '../../src/service/identity';
import { remoteKeyValidator, toValidatedKey } from '../../src/service/remote-key-validator';

const good = { valid: true, apiKeyId: 'key_1', user: { id: 'usr_1', email: 'a@b.c' }, scopes: ['jobs:read', 7] };

describe('toValidatedKey', () => {
  it('keeps the string scopes and reads an ISO expiry as Unix ms', () => {
    expect(toValidatedKey(good)).toStrictEqual({ apiKeyId: 'key_1', userId: 'usr_1', scopes: ['jobs:read'], user: { id: 'usr_1', email: 'a@b.c' } });
    expect(toValidatedKey({ ...good, expiresAt: '2030-01-01T00:00:00Z' })).toMatchObject({ expiresAt: Date.UTC(2030, 0, 1) });
    expect(toValidatedKey({ ...good, expiresAt: 'soon' })).not.toHaveProperty('expiresAt');
    expect(toValidatedKey({ ...good, expiresAt: 1 })).not.toHaveProperty('expiresAt');
  });

  it.each([
    ['nothing', undefined],
    ['valid false', { ...good, valid: false }],
    ['valid "true"', { ...good, valid: 'true' }],
    ['no key id', { ...good, apiKeyId: 1 }],
    ['no user', { ...good, user: undefined }],
    ['no user id', { ...good, user: { id: 5 } }],
    ['scopes not a list', { ...good, scopes: 'jobs:read' }],
  ])('calls an answer with %s not valid', (_what, body) => {
    expect(toValidatedKey(body)).toBeNull();
  });
});

describe('remoteKeyValidator and client-manager statuses', () => {
  let status = 200;
  let body = JSON.stringify(good);
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
  });
  let url: string;
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => server.close());
  beforeEach(() => {
    status = 200;
    body = JSON.stringify(good);
    seen.length = 0;
  });

  it('asks with JSON headers, and without the internal token header when none is configured', async () => {
    await expect(remoteKeyValidator({ clientManagerUrl: url }).validate(generateApiKey())).resolves.toMatchObject({ apiKeyId: 'key_1' });
    expect(seen[0]).toMatchObject({ 'content-type': 'application/json', accept: 'application/json' });
    expect(seen[0]).not.toHaveProperty('x-ocg-internal-token');
  });

  it.each([500, 503, 429])('answers 503 when client-manager answers %i, naming the status', async (s) => {
    status = s;
    const v = remoteKeyValidator({ clientManagerUrl: url });
    await expect(v.validate(generateApiKey())).rejects.toMatchObject({
      status: 503,
      message: 'API keys cannot be checked right now; try again shortly',
      internalDetail: `client-manager gave status ${s}`,
    });
    expect(v.cache.size).toBe(0);
  });

  it('names the socket error when client-manager does not answer', async () => {
    const v = remoteKeyValidator({ clientManagerUrl: url, fetch: async () => Promise.reject(new Error('boom')) });
    await expect(v.validate(generateApiKey())).rejects.toMatchObject({ status: 503, internalDetail: 'client-manager gave no answer (boom)' });
  });

  it.each([400, 404, 499])('calls the key not valid when client-manager refuses it with %i', async (s) => {
    status = s;
    await expect(remoteKeyValidator({ clientManagerUrl: url }).validate(generateApiKey())).resolves.toBeNull();
  });

  it('calls an unreadable answer not valid and caches it only for the negative TTL', async () => {
    body = 'not json';
    let now = 0;
    const v = remoteKeyValidator({ clientManagerUrl: url, now: () => now });
    const key = generateApiKey();
    await expect(v.validate(key)).resolves.toBeNull();
    now += 1_999;
    await v.validate(key);
    expect(seen).toHaveLength(1);
    now += 1;
    await v.validate(key);
    expect(seen).toHaveLength(2);
  });

  it('keeps a valid answer 10 s by default and at most maxEntries answers', async () => {
    let now = 0;
    const v = remoteKeyValidator({ clientManagerUrl: url, now: () => now, maxEntries: 2 });
    const key = generateApiKey();
    await v.validate(key);
    now += 9_999;
    await v.validate(key);
    expect(seen).toHaveLength(1);
    now += 1;
    await v.validate(key);
    expect(seen).toHaveLength(2);
    await v.validate(generateApiKey());
    await v.validate(generateApiKey());
    expect(v.cache.size).toBe(2);
  });

  it('asks again once a shared lookup has finished', async () => {
    const v = remoteKeyValidator({ clientManagerUrl: url, cacheTtlMs: 1 });
    const key = generateApiKey();
    await v.validate(key);
    await new Promise((r) => setTimeout(r, 5));
    await v.validate(key);
    expect(seen).toHaveLength(2);
  });

  it('is ready and closes at once without Redis', async () => {
    const v = remoteKeyValidator({ clientManagerUrl: url });
    await expect(v.ready()).resolves.toBeUndefined();
    await expect(v.close()).resolves.toBeUndefined();
  });
});

describe('identityOf', () => {
  it('gives the identity authentication put on the request', () => {
    const identity = { kind: 'internal', userId: null, scopes: [] };
    expect(identityOf({ user: identity })).toBe(identity);
  });

  it.each([[{}], [{ user: null }], [{ user: 'usr_1' }], [{ user: { id: 'usr_1' } }]])('throws for a request without one: %j', (req) => {
    expect(() => identityOf(req)).toThrow('no authenticated identity on this request: is the route missing @Security?');
  });
});
