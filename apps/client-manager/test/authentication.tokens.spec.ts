/**
 * Access tokens from an issuer whose keys are configured inline (OAUTH_JWKS),
 * tokens with claims missing, the issuer's keys unreachable or unusable, and
 * the exact shape of the Authorization header.
 */
import http from 'node:http';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWTPayload } from 'jose';
import { freePort } from '@ocg/testing';
import { AccessTokenVerifier } from '../src/auth/access-tokens';
import { startClientManager, type Harness, type TestUser } from './harness';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'https://api.ocg.test';

interface Issuer {
  jwks: string;
  token(payload: JWTPayload, opts?: { exp?: boolean; sub?: boolean }): Promise<string>;
}

async function inlineIssuer(): Promise<Issuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'inline', alg: 'ES256', use: 'sig' }] });
  return { jwks, token: (payload, opts) => sign(privateKey, payload, opts) };
}

function sign(key: CryptoKey, payload: JWTPayload, { exp = true, sub = true } = {}): Promise<string> {
  const jwt = new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'inline' }).setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt();
  if (exp) jwt.setExpirationTime('5m');
  if (sub && payload.sub === undefined) jwt.setSubject('usr_unset');
  return jwt.sign(key);
}

describe('access tokens with inline issuer keys (OAUTH_JWKS)', () => {
  let issuer: Issuer;
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    issuer = await inlineIssuer();
    cm = await startClientManager({ env: { OAUTH_ISSUER: ISSUER, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS: issuer.jwks } });
    user = await cm.createUser();
  });
  afterAll(() => cm.close());

  const listKeys = async (token: string) => cm.call('GET', '/api-keys/', { headers: { authorization: `Bearer ${token}` } });
  const createKey = async (token: string) => cm.call('POST', '/api-keys/', { headers: { authorization: `Bearer ${token}` }, body: { name: 'via token' } });

  it('accepts a token signed by a key of the inline set', async () => {
    expect((await listKeys(await issuer.token({ sub: user.id, scope: 'api-keys:manage' }))).status).toBe(200);
  });

  it('keeps only known, OAuth-grantable scopes of the claim, each once', async () => {
    const token = await issuer.token({ sub: user.id, scope: 'api-keys:manage users:manage no:such-scope api-keys:manage wallet:sign' });
    const res = await createKey(token);
    expect(res.status).toBe(200);
    expect(res.body.scopes).toEqual(['api-keys:manage', 'wallet:sign']);
  });

  it('grants no scope to a token without a scope claim: 403, not 401', async () => {
    const res = await listKeys(await issuer.token({ sub: user.id }));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('The credential lacks the scope api-keys:manage');
  });

  it.each([
    ['exp', { exp: false }],
    ['sub', { sub: false }],
  ])('refuses a token without %s', async (claim, opts) => {
    const res = await listKeys(await issuer.token({ scope: 'api-keys:manage', ...(claim === 'sub' ? {} : { sub: user.id }) }, opts));
    expect(res.status).toBe(401);
    expect(res.body.message).toBe(`The access token was refused: ${claim} claim is not acceptable`);
  });

  it('answers 401 "not valid" for a token that is no JWT at all', async () => {
    const res = await listKeys('aaaa.bbbb.cccc');
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('The access token is not valid');
  });

  it('names the reasons exactly', async () => {
    const expired = await listKeys(await issuer.token({ sub: user.id, scope: 'api-keys:manage', exp: Math.floor(Date.now() / 1000) - 60 }, { exp: false }));
    expect(expired.body.message).toBe('The access token has expired');
    const nobody = await listKeys(await issuer.token({ sub: 'usr_nobody', scope: 'api-keys:manage' }));
    expect(nobody.body.message).toBe('The access token names no known user');
    const scoped = await cm.call('POST', '/users', {
      headers: { authorization: `Bearer ${await issuer.token({ sub: user.id, scope: 'users:manage' })}` },
      body: { email: 'x@example.com', name: 'x' },
    });
    expect(scoped.body.message).toBe('The scope users:manage is for API keys only: an access token cannot satisfy it');
  });
});

describe('AccessTokenVerifier', () => {
  let issuer: Issuer;
  beforeAll(async () => (issuer = await inlineIssuer()));

  it.each([
    ['no issuer', { OAUTH_AUDIENCE: AUDIENCE }],
    ['no audience', { OAUTH_ISSUER: ISSUER }],
    ['no keys', { OAUTH_ISSUER: ISSUER, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS: undefined }],
  ])('refuses every token with %s configured', async (_what, config) => {
    const verifier = new AccessTokenVerifier({ OAUTH_JWKS: issuer.jwks, ...config });
    await expect(verifier.verify(await issuer.token({ sub: 'usr_a', scope: 'wallet:sign' }))).rejects.toMatchObject({
      status: 401,
      message: 'OAuth is not configured: use an API key',
    });
  });

  it('answers no scopes for a token without a scope claim', async () => {
    const verifier = new AccessTokenVerifier({ OAUTH_ISSUER: ISSUER, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS: issuer.jwks });
    expect(await verifier.verify(await issuer.token({ sub: 'usr_a' }))).toEqual({ userId: 'usr_a', scopes: [] });
  });

  it('answers the subject and scopes of a valid token', async () => {
    const verifier = new AccessTokenVerifier({ OAUTH_ISSUER: ISSUER, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS: issuer.jwks });
    expect(await verifier.verify(await issuer.token({ sub: 'usr_a', scope: 'wallet:sign credits:read' }))).toEqual({ userId: 'usr_a', scopes: ['wallet:sign', 'credits:read'] });
  });

  describe('with the keys behind a URL', () => {
    let server: http.Server;
    let base: string;
    let answer: (res: http.ServerResponse) => void;
    beforeAll(async () => {
      server = http.createServer((_req, res) => answer(res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const verifierAt = (url: string) => new AccessTokenVerifier({ OAUTH_ISSUER: ISSUER, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS_URL: url });
    const token = () => issuer.token({ sub: 'usr_a', scope: 'wallet:sign' });

    it('answers 503 when the keys cannot be fetched', async () => {
      const closed = `http://127.0.0.1:${await freePort()}/jwks.json`;
      await expect(verifierAt(closed).verify(await token())).rejects.toMatchObject({ status: 503, message: 'The OAuth issuer keys could not be fetched; try again shortly' });
    });

    it('answers 503 when the issuer does not answer within 3 s', async () => {
      answer = () => undefined; // never answers
      const started = Date.now();
      await expect(verifierAt(`${base}/slow`).verify(await token())).rejects.toMatchObject({
        status: 503,
        message: 'The OAuth issuer keys could not be fetched; try again shortly',
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
      expect(Date.now() - started).toBeLessThan(4900); // not fetch's or jose's longer default
    }, 20_000);

    it.each([
      ['an HTTP error', (res: http.ServerResponse) => void res.writeHead(500).end('down')],
      ['a body that is not JSON', (res: http.ServerResponse) => void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>')],
    ])('answers 503, not 401, when the issuer answers %s for its keys', async (_what, respond) => {
      answer = respond;
      await expect(verifierAt(`${base}/failing`).verify(await token())).rejects.toMatchObject({
        status: 503,
        message: 'The OAuth issuer keys could not be fetched; try again shortly',
      });
    });

    it('answers 503 when the keys are unusable', async () => {
      answer = (res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": "none"}');
      await expect(verifierAt(`${base}/broken`).verify(await token())).rejects.toMatchObject({ status: 503, message: 'The OAuth issuer keys are unusable' });
    });
  });
});

describe('the Authorization header', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
  });
  afterAll(() => cm.close());

  const listKeys = (authorization: string) => cm.call('GET', '/api-keys/', { headers: { authorization } });

  it('takes several spaces after the scheme and trailing spaces', async () => {
    expect((await listKeys(`Bearer   ${user.key}`)).status).toBe(200);
    expect((await listKeys(`Bearer ${user.key}   `)).status).toBe(200);
  });

  it.each([
    ['anything before the scheme', (key: string) => `XBearer ${key}`],
    ['a second word after the credential', (key: string) => `Bearer ${key} extra`],
    ['no space after the scheme', (key: string) => `Bearer${key}`],
  ])('refuses %s as malformed', async (_what, header) => {
    const res = await listKeys(header(user.key));
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Malformed Authorization header: expected "Bearer <credential>"');
  });

  it('names each key failure exactly', async () => {
    expect((await listKeys('Bearer ocg_short')).body.message).toBe('The bearer credential is neither a well-formed API key nor an access token');
    const missing = await cm.call('GET', '/api-keys/');
    expect(missing.body.message).toBe('Authentication required: send Authorization: Bearer <API key or OAuth access token>');
  });

  it('names the missing scope exactly', async () => {
    const narrow = await cm.call('POST', '/api-keys/', { key: user.key, body: { name: 'narrow', scopes: ['wallet:sign'] } });
    expect((await listKeys(`Bearer ${narrow.body.key}`)).body.message).toBe('The credential lacks the scope api-keys:manage');
  });

  it('refuses an access token when OAuth is not configured, with the reason', async () => {
    const res = await listKeys('Bearer aaaa.bbbb.cccc');
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('OAuth is not configured: use an API key');
  });

  it('names the internal credential header when it is wrong', async () => {
    const res = await cm.call('POST', '/credits/holds', {
      body: { userId: user.id, amount: 1, reference: 'r' },
      headers: { 'x-ocg-internal-token': 'wrong-token-of-some-length' },
    });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Internal route: a valid x-ocg-internal-token header is required');
  });
});
