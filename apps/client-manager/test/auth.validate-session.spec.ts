import { verifyAuthHeader } from '@ocg/auth';
import { USER_SCOPES } from '@ocg/contracts';
import { startClientManager, type Harness, type TestUser } from './harness';
import { MEDIA_TYPES } from './support/http';
import { validate } from './support/keys';
import { userRecordOf } from './support/users';

const PASSWORD = 'correct horse battery staple';

describe('POST /auth/validate-session', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser({ password: PASSWORD });
  });
  afterAll(() => cm.close());

  const login = async (): Promise<string> => {
    const res = await cm.call('POST', '/auth/login', { body: { email: user.email, password: PASSWORD } });
    return res.headers.get('set-cookie')!.split(';')[0];
  };
  const check = (cookieHeader: string) => cm.call('POST', '/auth/validate-session', { body: { cookieHeader } });

  it('reports a live session with every user member, a signed header and the system key', async () => {
    const cookie = await login();
    const res = await check(`theme=dark; ${cookie}; lang=en`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: true,
      user: {
        ...userRecordOf(user),
        sessionProviderUserId: null,
        authenticationHeader: expect.any(String),
        systemApiKey: expect.stringMatching(/^ocg_/),
      },
      session: { handle: cookie.split('=')[1], expiresAt: expect.any(String) },
    });
  });

  it("gives an auth header signed by the user's wallet, with a timestamp", async () => {
    const { body } = await check(await login());
    const verdict = verifyAuthHeader(body.user.authenticationHeader, user.address, { requireTimestamp: true, now: cm.now() });
    expect(verdict).toEqual({ ok: true, message: 'ocg-session', timestamp: expect.any(Number) });
  });

  it('gives one system key holding every user scope, the same on every call', async () => {
    const cookie = await login();
    const first = (await check(cookie)).body.user.systemApiKey;
    expect((await check(cookie)).body.user.systemApiKey).toBe(first);
    const validation = await validate(cm, first);
    expect(validation).toMatchObject({ valid: true, user: { id: user.id }, scopes: USER_SCOPES });
  });

  it('replaces a disabled system key with a fresh one, so revoking it works and the session goes on', async () => {
    const cookie = await login();
    const old = (await check(cookie)).body.user.systemApiKey;
    const { apiKeyId } = await validate(cm, old);
    await cm.call('POST', `/api-keys/${apiKeyId}/update`, { key: user.key, body: { status: 'disabled' } });
    const fresh = (await check(cookie)).body.user.systemApiKey;
    expect(fresh).not.toBe(old);
    expect((await validate(cm, fresh)).valid).toBe(true);
    expect((await validate(cm, old)).valid).toBe(false);
  });

  it.each([
    ['no cookie at all', ''],
    ['other cookies only', 'theme=dark; lang=en'],
    ['a forged handle', 'ocg_session=ses_1111111111111111111111'],
    ['garbage', 'ocg_session=%%%'],
  ])('answers {valid: false} for %s', async (_what, header) => {
    expect((await check(header)).body).toEqual({ valid: false });
  });

  it('answers {valid: false} once the session has expired', async () => {
    const cookie = await login();
    cm.advance(cm.config.SESSION_TTL_SECONDS * 1000);
    expect((await check(cookie)).body).toEqual({ valid: false });
  });

  it('answers {valid: false} after logout', async () => {
    const cookie = await login();
    await cm.call('POST', '/auth/logout', { headers: { cookie } });
    expect((await check(cookie)).body).toEqual({ valid: false });
  });

  it.each(MEDIA_TYPES)('accepts the body as %s', async (type) => {
    const cookie = await login();
    expect((await cm.call('POST', '/auth/validate-session', { body: { cookieHeader: cookie }, type })).body.valid).toBe(true);
  });

  it('requires cookieHeader', async () => {
    const res = await cm.call('POST', '/auth/validate-session', { body: {} });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/cookieHeader' })]);
  });
});
