import { generateApiKey } from '@ocg/auth';
import { startClientManager, type Harness, type TestUser } from './harness';
import { createKey } from './support/keys';
import { startOAuthIssuer, type OAuthIssuer } from './support/oauth';

/** The security of every protected route: API keys (bearerAuth) or OAuth access tokens (serviceOAuth). */
describe('authentication', () => {
  let issuer: OAuthIssuer;
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    issuer = await startOAuthIssuer();
    cm = await startClientManager({ env: issuer.env });
    user = await cm.createUser();
  });
  afterAll(async () => {
    await cm.close();
    await issuer.close();
  });

  const listKeys = (authorization?: string) => cm.call('GET', '/api-keys/', { headers: authorization ? { authorization } : {} });
  const expectError = (res: { status: number; body: any }, status: number, message: RegExp) => {
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ name: status === 401 ? 'UnauthorizedError' : 'ForbiddenError', status, requestId: expect.any(String) });
    expect(res.body.message).toMatch(message);
  };

  describe('with an API key', () => {
    it('answers 401 without a credential', async () => expectError(await listKeys(), 401, /Authentication required/));
    it('answers 401 for a header that is not Bearer', async () => expectError(await listKeys(`Basic ${Buffer.from('a:b').toString('base64')}`), 401, /Malformed Authorization/));
    it('answers 401 for Bearer without a credential', async () => expectError(await listKeys('Bearer '), 401, /Malformed Authorization/));
    it('answers 401 for a malformed key', async () => expectError(await listKeys('Bearer ocg_short'), 401, /neither a well-formed API key/));
    it('answers 401 for an unknown key', async () => expectError(await listKeys(`Bearer ${generateApiKey()}`), 401, /unknown or deleted/));

    it('answers 401 for a disabled key', async () => {
      const made = await createKey(cm, user.key);
      await cm.call('POST', `/api-keys/${made.id}/update`, { key: user.key, body: { status: 'disabled' } });
      expectError(await listKeys(`Bearer ${made.key}`), 401, /disabled/);
    });

    it('answers 401 for an expired key', async () => {
      const made = await createKey(cm, user.key, { expiresIn: 1 });
      expect((await listKeys(`Bearer ${made.key}`)).status).toBe(200);
      cm.advance(1000);
      expectError(await listKeys(`Bearer ${made.key}`), 401, /expired/);
    });

    it('answers 401 for a deleted key', async () => {
      const made = await createKey(cm, user.key);
      await cm.call('POST', `/api-keys/${made.id}/delete`, { key: user.key });
      expectError(await listKeys(`Bearer ${made.key}`), 401, /unknown or deleted/);
    });

    it('answers 403 naming the scope a key lacks', async () => {
      const made = await createKey(cm, user.key, { scopes: ['wallet:sign'] });
      expectError(await listKeys(`Bearer ${made.key}`), 403, /lacks the scope api-keys:manage/);
    });

    it('accepts the scheme name in any letter case', async () => {
      expect((await listKeys(`bearer ${user.key}`)).status).toBe(200);
    });
  });

  describe('with an OAuth access token', () => {
    const bearer = async (claims: Parameters<OAuthIssuer['token']>[0]) => `Bearer ${await issuer.token(claims)}`;

    it("acts for the token's subject when it carries the scope", async () => {
      const res = await listKeys(await bearer({ sub: user.id, scope: 'api-keys:manage' }));
      expect(res.status).toBe(200);
      expect(res.body.keys.map((k: { id: string }) => k.id)).toContain(user.keyId);
    });

    it('answers 403 when the token lacks the scope', async () => {
      expectError(await listKeys(await bearer({ sub: user.id, scope: 'wallet:sign credits:read' })), 403, /lacks the scope api-keys:manage/);
    });

    it('never satisfies a scope that is not OAuth-grantable, even when the token claims it', async () => {
      const admin = (await cm.call('POST', '/auth/validate-api-key', { body: { apiKey: cm.adminKey } })).body.user.id;
      const token = await bearer({ sub: admin, scope: 'users:manage credits:grant api-keys:manage' });
      const res = await cm.call('POST', '/users', { headers: { authorization: token }, body: { email: 'via-token@example.com', name: 'x' } });
      expectError(res, 403, /users:manage is for API keys only/);
    });

    it("mints keys only within the token's scopes", async () => {
      const token = await bearer({ sub: user.id, scope: 'api-keys:manage wallet:sign' });
      const made = await cm.call('POST', '/api-keys/', { headers: { authorization: token }, body: { name: 'from oauth' } });
      expect(made.body.scopes).toEqual(['api-keys:manage', 'wallet:sign']);
      const wider = await cm.call('POST', '/api-keys/', { headers: { authorization: token }, body: { name: 'wider', scopes: ['credits:read'] } });
      expect(wider.status).toBe(403);
    });

    it.each([
      ['an expired token', { expiresIn: -60 }, /expired/],
      ['a token from another issuer', { iss: 'https://evil.example' }, /iss claim/],
      ['a token for another audience', { aud: 'https://other.example' }, /aud claim/],
      ['a token that is not an access token (typ JWT)', { typ: 'JWT' }, /typ/],
      ['a token signed by a key the issuer does not publish', { foreignKey: true }, /not valid/],
    ])('answers 401 for %s', async (_what, claims, message) => {
      expectError(await listKeys(await bearer({ sub: user.id, scope: 'api-keys:manage', ...claims })), 401, message);
    });

    it('answers 401 for a token whose subject is no user', async () => {
      expectError(await listKeys(await bearer({ sub: 'usr_nobody', scope: 'api-keys:manage' })), 401, /no known user/);
    });
  });
});

describe('authentication without OAuth configured', () => {
  let issuer: OAuthIssuer;
  let cm: Harness;
  beforeAll(async () => {
    issuer = await startOAuthIssuer();
    cm = await startClientManager();
  });
  afterAll(async () => {
    await cm.close();
    await issuer.close();
  });

  it('refuses access tokens with 401 "OAuth is not configured"', async () => {
    const user = await cm.createUser();
    const token = await issuer.token({ sub: user.id, scope: 'api-keys:manage' });
    const res = await cm.call('GET', '/api-keys/', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/OAuth is not configured/);
  });
});
