import { startClientManager, type Harness } from './harness';
import { createKey } from './support/keys';

describe('log hygiene', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager()));
  afterAll(() => cm.close());

  it('never writes a key, a password, a session handle or the master key to a log line across a full flow', async () => {
    const password = 'my very secret password 42';
    const user = await cm.createUser({ password });
    const made = await createKey(cm, user.key, { name: 'flow' });
    await cm.call('POST', '/auth/validate-api-key', { body: { apiKey: made.key } });
    await cm.call('POST', '/auth/validate-api-key', { body: { apiKey: `${made.key}x` } });
    await cm.call('GET', `/api-keys/?apiKey=${made.key}`, { key: made.key });
    const login = await cm.call('POST', '/auth/login', { body: { email: user.email, password } });
    await cm.call('POST', '/auth/login', { body: { email: user.email, password: `${password}!` } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const session = await cm.call('POST', '/auth/validate-session', { body: { cookieHeader: cookie } });
    await cm.call('POST', '/auth/sign-message/external', { key: made.key, body: { message: 'm' } });
    await cm.call('POST', '/auth/logout', { headers: { cookie } });

    const text = cm.logs.text();
    expect(cm.logs.lines().length).toBeGreaterThan(10); // the flow was logged (debug level), just not its secrets
    for (const secret of [user.key, made.key, cm.adminKey, password, cookie.split('=')[1], session.body.user.systemApiKey, cm.config.MASTER_KEY!, cm.internalToken]) {
      expect(text).not.toContain(secret);
    }
  });
});
