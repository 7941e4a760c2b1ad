import type { Request } from 'express';
import { ForbiddenError, HttpError, ServiceUnavailableError, UnauthorizedError } from '@ocg/http';
import { generateApiKey } from '../../src/api-key';
import { AuthenticationRegistry, createExpressAuthentication } from '../../src/service/express-auth';
import type { KeyValidator } from '../../src/service/identity';
import { signNodeRequest } from '../../src/service/node-signing';
import { SIGNATURE_CHECKS_WAITING_MAX, createSigner, generateWallet, signMessage, verifySignatureBytesAsync } from '../../src/wallet';
import { decodeBase58Exact } from '../../src/base58';

const adminKey = generateApiKey();
const userKey = generateApiKey();
const keys: KeyValidator = {
  async validate(apiKey) {
    if (apiKey === adminKey) return { apiKeyId: 'key_admin', userId: 'usr_admin', scopes: ['markets:read', 'markets:manage'], user: { id: 'usr_admin' } };
    if (apiKey === userKey) return { apiKeyId: 'key_user', userId: 'usr_1', scopes: ['markets:read'], user: { id: 'usr_1' } };
    return null;
  },
};
const auth = createExpressAuthentication({ keys, internalToken: 'internal-token-of-32-characters!' });
const req = (headers: Record<string, string>, extra: Partial<Request> = {}) => ({ headers, method: 'GET', originalUrl: '/x', ...extra }) as unknown as Request;

async function failure(p: Promise<unknown>): Promise<HttpError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(err)}`);
  return err;
}

describe('bearerAuth', () => {
  it('gives the key owner, key id and scopes when the key holds the scope', async () => {
    await expect(auth(req({ authorization: `Bearer ${adminKey}` }), 'bearerAuth', ['markets:manage'])).resolves.toEqual({
      kind: 'apiKey',
      userId: 'usr_admin',
      apiKeyId: 'key_admin',
      scopes: ['markets:read', 'markets:manage'],
      user: { id: 'usr_admin' },
    });
  });

  it('answers 401 with WWW-Authenticate when no credential is sent', async () => {
    const err = await failure(auth(req({}), 'bearerAuth', ['markets:read']));
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err.headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
  });

  it('answers 401 for an unknown key and for another scheme', async () => {
    expect(await failure(auth(req({ authorization: `Bearer ${generateApiKey()}` }), 'bearerAuth', []))).toBeInstanceOf(UnauthorizedError);
    expect(await failure(auth(req({ authorization: `Basic ${adminKey}` }), 'bearerAuth', []))).toBeInstanceOf(UnauthorizedError);
  });

  it('answers 403 naming the scope the key lacks', async () => {
    const err = await failure(auth(req({ authorization: `Bearer ${userKey}` }), 'bearerAuth', ['markets:manage']));
    expect(err).toBeInstanceOf(ForbiddenError);
    expect(err.message).toMatch(/markets:manage/);
  });

  it('passes on a validator outage as 503, not as a bad credential', async () => {
    const down = createExpressAuthentication({ keys: { validate: () => Promise.reject(new ServiceUnavailableError('down')) } });
    expect((await failure(down(req({ authorization: `Bearer ${adminKey}` }), 'bearerAuth', []))).status).toBe(503);
  });
});

describe('bearerAuth, header reading', () => {
  it('accepts any case of the scheme and extra spaces, and nothing around the header', async () => {
    for (const header of [`bearer ${userKey}`, `Bearer   ${userKey}  `]) {
      await expect(auth(req({ authorization: header }), 'bearerAuth')).resolves.toMatchObject({ apiKeyId: 'key_user' });
    }
    for (const header of [`Bearer${userKey}`, `x Bearer ${userKey}`, `Bearer ${userKey} extra`, `Bearer ${userKey}\t`]) {
      expect((await failure(auth(req({ authorization: header }), 'bearerAuth'))).status).toBe(401);
    }
  });

  it('needs every scope asked for, and names them all', async () => {
    await expect(auth(req({ authorization: `Bearer ${userKey}` }), 'bearerAuth')).resolves.toMatchObject({ scopes: ['markets:read'] });
    const err = await failure(auth(req({ authorization: `Bearer ${userKey}` }), 'bearerAuth', ['markets:read', 'a', 'b']));
    expect([err.status, err.message]).toEqual([403, 'This operation needs the scopes a, b, which the API key lacks']);
    const one = await failure(auth(req({ authorization: `Bearer ${userKey}` }), 'bearerAuth', ['a']));
    expect(one.message).toBe('This operation needs the scope a, which the API key lacks');
  });

  it('says what is missing or wrong in the 401', async () => {
    expect((await failure(auth(req({}), 'bearerAuth'))).message).toBe('Missing credential: send Authorization: Bearer <API key>');
    expect((await failure(auth(req({ authorization: `Bearer ${generateApiKey()}` }), 'bearerAuth'))).message).toBe('The API key is invalid, disabled, expired or deleted');
    expect((await failure(auth(req({}), 'internal'))).message).toBe('Missing x-ocg-internal-token: this operation is for services only');
    expect((await failure(auth(req({ 'x-ocg-internal-token': '' }), 'internal'))).message).toBe('Missing x-ocg-internal-token: this operation is for services only');
    expect((await failure(auth(req({ 'x-ocg-internal-token': 'nope' }), 'internal'))).message).toBe('Wrong x-ocg-internal-token');
  });
});

describe('internal', () => {
  it('accepts the configured token', async () => {
    await expect(auth(req({ 'x-ocg-internal-token': 'internal-token-of-32-characters!' }), 'internal')).resolves.toEqual({ kind: 'internal', userId: null, scopes: [] });
  });

  it('answers 401 for a missing or wrong token, and for any token when none is configured', async () => {
    expect((await failure(auth(req({}), 'internal'))).status).toBe(401);
    expect((await failure(auth(req({ 'x-ocg-internal-token': 'internal-token-of-32-characters?' }), 'internal'))).status).toBe(401);
    const unconfigured = createExpressAuthentication({ keys });
    expect((await failure(unconfigured(req({ 'x-ocg-internal-token': '' }), 'internal'))).status).toBe(401);
    expect((await failure(unconfigured(req({ 'x-ocg-internal-token': 'anything' }), 'internal'))).status).toBe(401);
  });
});

describe('nodeSignature', () => {
  const node = createSigner(generateWallet().secretKey);
  const body = { specs: { cpus: 1 } };

  it('names the node that signed the request', async () => {
    const headers = signNodeRequest(node, { method: 'POST', path: '/nodes/heartbeat', body });
    await expect(auth(req(headers, { method: 'POST', originalUrl: '/nodes/heartbeat', body }), 'nodeSignature')).resolves.toEqual({
      kind: 'node',
      userId: null,
      nodeAddress: node.address,
      scopes: [],
    });
  });

  it('answers 401 saying why when the signature covers another body', async () => {
    const headers = signNodeRequest(node, { method: 'POST', path: '/nodes/heartbeat', body });
    const err = await failure(auth(req(headers, { method: 'POST', originalUrl: '/nodes/heartbeat', body: { specs: { cpus: 2 } } }), 'nodeSignature'));
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/another method, path or body/);
  });

  it('answers 503 with Retry-After, judging nothing, while too many signatures wait to be checked', async () => {
    const other = generateWallet();
    const signature = decodeBase58Exact(signMessage(other.secretKey, 'filler'), 64)!;
    // More checks than the pool runs and the queue holds, queued before any can finish.
    const filler = Array.from({ length: SIGNATURE_CHECKS_WAITING_MAX + 1000 }, () => verifySignatureBytesAsync(other.address, 'filler', signature).catch((e: Error) => e.name));
    const headers = signNodeRequest(node, { method: 'POST', path: '/nodes/heartbeat', body });
    const err = await failure(auth(req(headers, { method: 'POST', originalUrl: '/nodes/heartbeat', body }), 'nodeSignature'));
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.headers).toEqual({ 'Retry-After': '1' });
    expect(err.message).toBe('Too many signed requests are waiting to be checked; try again shortly');
    const answers = await Promise.all(filler);
    // Those that got in were all checked (and good); the rest were refused, not queued.
    const checked = answers.filter((a) => a === true).length;
    expect(checked).toBeGreaterThan(SIGNATURE_CHECKS_WAITING_MAX);
    expect(answers.filter((a) => a === 'SignatureChecksBusyError')).toHaveLength(answers.length - checked);
    expect(checked).toBeLessThan(answers.length);
    // Once they are done, the same request passes.
    await expect(auth(req(headers, { method: 'POST', originalUrl: '/nodes/heartbeat', body }), 'nodeSignature')).resolves.toMatchObject({ nodeAddress: node.address });
  });
});

describe('registry', () => {
  it('refuses every request until a real authentication is registered', async () => {
    const registry = new AuthenticationRegistry();
    await expect(registry.expressAuthentication(req({}), 'bearerAuth')).rejects.toThrow(/not configured/);
    registry.use(auth);
    await expect(registry.expressAuthentication(req({ authorization: `Bearer ${userKey}` }), 'bearerAuth', ['markets:read'])).resolves.toMatchObject({ userId: 'usr_1' });
  });

  it('fails a route naming an unknown scheme with a 500, never a pass', async () => {
    await expect(auth(req({}), 'magic')).rejects.toMatchObject({ status: 500, message: 'unknown security scheme "magic"' });
  });
});
