import { startClientManager, type Harness } from './harness';

describe('POST /auth/logout', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager()));
  afterAll(() => cm.close());

  it('ends the session and clears the cookie', async () => {
    const user = await cm.createUser({ password: 'correct horse battery' });
    const login = await cm.call('POST', '/auth/login', { body: { email: user.email, password: 'correct horse battery' } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const res = await cm.call('POST', '/auth/logout', { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(res.headers.get('set-cookie')).toBe('ocg_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    expect(await cm.db.query('SELECT 1 FROM sessions WHERE user_id = $1', [user.id])).toEqual([]);
    expect((await cm.call('POST', '/auth/validate-session', { body: { cookieHeader: cookie } })).body).toEqual({ valid: false });
  });

  it('answers success and clears the cookie without a session too', async () => {
    const res = await cm.call('POST', '/auth/logout', { headers: { 'x-forwarded-proto': 'https' } });
    expect(res.body).toEqual({ success: true });
    expect(res.headers.get('set-cookie')).toMatch(/^ocg_session=; .*Max-Age=0.*; Secure; Expires=/);
  });
});
