import { startClientManager, type Harness, type TestUser } from './harness';
import { MEDIA_TYPES } from './support/http';

const PASSWORD = 'correct horse battery staple';

describe('POST /auth/login', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser({ password: PASSWORD });
  });
  afterAll(() => cm.close());

  const login = (body: unknown, headers: Record<string, string> = {}, type?: 'json' | 'text' | 'multipart') => cm.call('POST', '/auth/login', { body, headers, type });

  it('sets an HttpOnly, SameSite=Lax session cookie for the whole site and answers the user', async () => {
    const res = await login({ email: user.email, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: user.id, email: user.email, generatedAddress: user.address });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^ocg_session=ses_[1-9A-HJ-NP-Za-km-z]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    expect(Date.parse(res.body.expiresAt) - cm.now()).toBeGreaterThan(604_790_000);
  });

  it('marks the cookie Secure when the request came over HTTPS', async () => {
    const res = await login({ email: user.email, password: PASSWORD }, { 'x-forwarded-proto': 'https' });
    expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('matches the email case-insensitively', async () => {
    expect((await login({ email: user.email.toUpperCase(), password: PASSWORD })).status).toBe(200);
  });

  it.each(MEDIA_TYPES)('accepts the body as %s', async (type) => {
    expect((await login({ email: user.email, password: PASSWORD }, {}, type)).status).toBe(200);
  });

  it('answers the same 401 for a wrong password, an unknown email and a user without a password, with no cookie', async () => {
    const noPassword = await cm.createUser();
    const answers = await Promise.all([
      login({ email: user.email, password: 'wrong' }),
      login({ email: 'nobody@example.com', password: PASSWORD }),
      login({ email: noPassword.email, password: PASSWORD }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ name: 'UnauthorizedError', message: 'Email or password is incorrect' });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('refuses a body without a password', async () => {
    const res = await login({ email: user.email });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/password' })]);
  });

  it('stores only a hash of the session handle', async () => {
    const res = await login({ email: user.email, password: PASSWORD });
    const handle = res.headers.get('set-cookie')!.split(';')[0].split('=')[1];
    const rows = await cm.db.query('SELECT * FROM sessions');
    expect(JSON.stringify(rows)).not.toContain(handle);
  });
});

describe('POST /auth/login rate limit', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager({ env: { RATE_LIMIT_LOGIN_PER_MINUTE: '2' } })));
  afterAll(() => cm.close());

  it('answers 429 with Retry-After past the limit for one client address, and not for another', async () => {
    const attempt = (ip: string) => cm.call('POST', '/auth/login', { body: { email: 'a@example.com', password: 'guess' }, headers: { 'x-forwarded-for': ip } });
    expect((await attempt('203.0.113.1')).status).toBe(401);
    expect((await attempt('203.0.113.1')).status).toBe(401);
    const limited = await attempt('203.0.113.1');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await attempt('203.0.113.2')).status).toBe(401);
  });
});
