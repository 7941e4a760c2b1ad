import { startClientManager, type Harness, type TestUser } from './harness';
import { MEDIA_TYPES } from './support/http';
import { createKey } from './support/keys';
import { nobleSignature, nodeSignature, verifiesFor, walletSeedOf } from './support/wallet';

describe('POST /auth/sign-message/external', () => {
  let cm: Harness;
  let user: TestUser;
  let seed: Buffer;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
    seed = await walletSeedOf(cm, user.id);
  });
  afterAll(() => cm.close());

  const sign = (body: unknown, type?: 'json' | 'text' | 'multipart', key = user.key) => cm.call('POST', '/auth/sign-message/external', { key, body, type });

  it("signs with the user's wallet: byte-identical to node:crypto and @noble/ed25519, no timestamp", async () => {
    const res = await sign({ message: 'hello: wörld' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'hello: wörld', signature: expect.any(String), userAddress: user.address });
    expect(res.body.signature).toBe(nodeSignature(seed, 'hello: wörld'));
    expect(res.body.signature).toBe(nobleSignature(seed, 'hello: wörld'));
    expect(verifiesFor(user.address, 'hello: wörld', res.body.signature)).toBe(true);
  });

  it('with includeTime, binds the Unix ms timestamp into the signature over "<message>:<timestamp>"', async () => {
    const before = cm.now();
    const res = await sign({ message: 'job-1', includeTime: true });
    expect(res.body.timestamp).toBeGreaterThanOrEqual(before);
    expect(res.body.timestamp).toBeLessThanOrEqual(cm.now());
    expect(res.body.signature).toBe(nobleSignature(seed, `job-1:${res.body.timestamp}`));
    expect(verifiesFor(user.address, 'job-1', res.body.signature)).toBe(false);
  });

  it('omits the timestamp when includeTime is false', async () => {
    expect((await sign({ message: 'm', includeTime: false })).body).not.toHaveProperty('timestamp');
  });

  it.each(MEDIA_TYPES)('accepts the body as %s', async (type) => {
    const res = await sign({ message: 'typed', includeTime: true }, type);
    expect(res.status).toBe(200);
    expect(res.body.signature).toBe(nobleSignature(seed, `typed:${res.body.timestamp}`));
  });

  it('answers in each media type the caller accepts', async () => {
    const text = await cm.call('POST', '/auth/sign-message/external', { key: user.key, body: { message: 'm' }, headers: { accept: 'text/plain' } });
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text.body.signature).toBe(nobleSignature(seed, 'm'));
  });

  it('refuses an empty message', async () => {
    const res = await sign({ message: '' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/message' })]);
  });

  it('accepts a 1-character message', async () => {
    expect((await sign({ message: 'x' })).body.signature).toBe(nobleSignature(seed, 'x'));
  });

  it('refuses additional members', async () => {
    const res = await sign({ message: 'm', userId: 'usr_someone' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/userId', message: 'is not an allowed member' }]);
  });

  it('answers 401 with name and message without a credential', async () => {
    const res = await cm.call('POST', '/auth/sign-message/external', { body: { message: 'm' } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ name: 'UnauthorizedError', message: expect.any(String) });
  });

  it('answers 403 for a key without wallet:sign', async () => {
    const { key } = await createKey(cm, user.key, { scopes: ['credits:read'] });
    const res = await sign({ message: 'm' }, 'json', key);
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('wallet:sign');
  });

  it('answers 500 with name and message, and no internals, when the wallet cannot be opened', async () => {
    const broken = await cm.createUser();
    await cm.db.query(`UPDATE users SET wallet_seed_sealed = 'v1.AAAA.AAAA.AAAA' WHERE id = $1`, [broken.id]);
    const res = await sign({ message: 'm' }, 'json', broken.key);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ name: 'InternalError', message: 'Internal server error', status: 500, code: 'INTERNAL', requestId: expect.any(String) });
  });

  it('never returns the signing key', async () => {
    const res = await sign({ message: 'm' });
    expect(JSON.stringify(res.body)).not.toContain(seed.toString('hex'));
    expect(JSON.stringify(res.body)).not.toContain(seed.toString('base64'));
  });
});
