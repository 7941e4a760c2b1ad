import { startClientManager, type Harness, type TestUser } from './harness';
import { MEDIA_TYPES } from './support/http';
import { nobleSignature, walletSeedOf } from './support/wallet';

describe('POST /auth/sign-messages/external', () => {
  let cm: Harness;
  let user: TestUser;
  let seed: Buffer;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
    seed = await walletSeedOf(cm, user.id);
  });
  afterAll(() => cm.close());

  const messages = (n: number): string[] => Array.from({ length: n }, (_, i) => `job-${i}`);
  const sign = (body: unknown, type?: 'json' | 'text' | 'multipart') => cm.call('POST', '/auth/sign-messages/external', { key: user.key, body, type });

  it.each([1, 100])('signs %i messages in request order, each byte-identical to @noble/ed25519', async (n) => {
    const res = await sign({ messages: messages(n) });
    expect(res.status).toBe(200);
    expect(res.body.userAddress).toBe(user.address);
    expect(res.body.signatures).toHaveLength(n);
    res.body.signatures.forEach((s: any, i: number) => {
      expect(s).toEqual({ message: `job-${i}`, signature: nobleSignature(seed, `job-${i}`), userAddress: user.address });
    });
  });

  it.each([0, 101])('refuses %i messages', async (n) => {
    const res = await sign({ messages: messages(n) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/messages' })]);
  });

  it('refuses an empty message, naming its index', async () => {
    const res = await sign({ messages: ['a', 'b', 'c', ''] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/messages/3' })]);
  });

  it('with includeTime, binds one timestamp into every signature', async () => {
    const res = await sign({ messages: ['a', 'b'], includeTime: true });
    const [a, b] = res.body.signatures;
    expect(a.timestamp).toBe(b.timestamp);
    expect(a.signature).toBe(nobleSignature(seed, `a:${a.timestamp}`));
    expect(b.signature).toBe(nobleSignature(seed, `b:${b.timestamp}`));
  });

  it('keeps duplicate messages, one signature each', async () => {
    expect((await sign({ messages: ['same', 'same'] })).body.signatures).toHaveLength(2);
  });

  it.each(MEDIA_TYPES)('accepts the body as %s', async (type) => {
    const res = await sign({ messages: ['x', 'y'], includeTime: true }, type);
    expect(res.status).toBe(200);
    expect(res.body.signatures.map((s: { message: string }) => s.message)).toEqual(['x', 'y']);
  });

  it('refuses additional members', async () => {
    expect((await sign({ messages: ['x'], message: 'y' })).status).toBe(400);
  });

  it('answers 401 with name and message for an unknown key', async () => {
    const res = await cm.call('POST', '/auth/sign-messages/external', { key: `ocg_${'1'.repeat(50)}`, body: { messages: ['x'] } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ name: 'UnauthorizedError', message: expect.any(String) });
  });
});
