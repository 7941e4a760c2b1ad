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

  it('keeps SQL parameters, row contents and the query error detail of a database error out of every line', async () => {
    const marker = 'DB-MARKER-9e41';
    // Every new user now fails a check: the insert's error quotes the failing row and carries the parameters.
    await cm.db.query('ALTER TABLE users ADD CONSTRAINT users_test_refuse CHECK (false) NOT VALID');
    try {
      const res = await cm.call('POST', '/users', { key: cm.adminKey, body: { email: `${marker}@example.com`, name: `name ${marker}`, password: `password ${marker}` } });
      expect(res.status).toBe(500);
      expect(JSON.stringify(res.body)).not.toContain(marker);
    } finally {
      await cm.db.query('ALTER TABLE users DROP CONSTRAINT users_test_refuse');
    }
    const text = cm.logs.text();
    expect(text).toContain('users_test_refuse'); // the failure was logged, by the constraint's name
    expect(text).not.toContain(marker);
  });
});
