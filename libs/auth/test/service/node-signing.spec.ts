import { createAuthHeader } from '../../src/auth-header';
import { describeNodeFailure, signNodeRequest, verifyNodeRequest, canonicalJson, nodeRequestMessage } from '../../src/service/node-signing';
import { createSigner, generateWallet } from '../../src/wallet';

const node = createSigner(generateWallet().secretKey);
const other = createSigner(generateWallet().secretKey);
const request = { method: 'POST', path: '/nodes/heartbeat', body: { specs: { cpus: 4, gpus: [] } } };
const now = 1_760_000_000_000;

describe('node request signing', () => {
  it('verifies a signed request and names the node', async () => {
    const headers = signNodeRequest(node, request, { now });
    await expect(verifyNodeRequest(headers, request, 300, { now: now + 1000 })).resolves.toEqual({ ok: true, nodeAddress: node.address, timestamp: now });
  });

  it('accepts the same body with its members in another order', async () => {
    const headers = signNodeRequest(node, request, { now });
    const reordered = { ...request, body: { specs: { gpus: [], cpus: 4 } } };
    expect((await verifyNodeRequest(headers, reordered, 300, { now })).ok).toBe(true);
  });

  it.each([
    ['method', { ...request, method: 'PUT' }],
    ['path', { ...request, path: '/nodes/register' }],
    ['query', { ...request, path: '/nodes/heartbeat?x=1' }],
    ['body', { ...request, body: { specs: { cpus: 5, gpus: [] } } }],
  ])('rejects a request whose %s differs from what was signed', async (_what, edited) => {
    const headers = signNodeRequest(node, request, { now });
    await expect(verifyNodeRequest(headers, edited, 300, { now })).resolves.toEqual({ ok: false, reason: 'unexpected-message' });
  });

  it('rejects a signature older than the allowed age', async () => {
    const headers = signNodeRequest(node, request, { now });
    await expect(verifyNodeRequest(headers, request, 60, { now: now + 61_000 })).resolves.toEqual({ ok: false, reason: 'expired' });
  });

  it('rejects a request signed by another key than the named node', async () => {
    const headers = { ...signNodeRequest(other, request, { now }), 'x-ocg-node': node.address };
    await expect(verifyNodeRequest(headers, request, 300, { now })).resolves.toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('rejects an untimed header even when its signature is good', async () => {
    const { header } = createAuthHeader(node, nodeRequestMessage(request), { includeTime: false });
    await expect(verifyNodeRequest({ 'x-ocg-node': node.address, authorization: header }, request, 300, { now })).resolves.toEqual({ ok: false, reason: 'timestamp-required' });
  });

  it('names the missing node header, a bad address and a missing signature', async () => {
    await expect(verifyNodeRequest({}, request)).resolves.toEqual({ ok: false, reason: 'missing-node-header' });
    await expect(verifyNodeRequest({ 'x-ocg-node': 'not-an-address' }, request)).resolves.toEqual({ ok: false, reason: 'bad-node-address' });
    await expect(verifyNodeRequest({ 'x-ocg-node': node.address }, request)).resolves.toEqual({ ok: false, reason: 'missing-signature' });
    await expect(verifyNodeRequest({ 'x-ocg-node': node.address, authorization: 'Bearer x' }, request)).resolves.toEqual({ ok: false, reason: 'malformed' });
  });

  it('writes canonical JSON with sorted keys at every depth and nothing for no body', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null, skipped: undefined })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
    expect(canonicalJson(undefined)).toBe('');
  });

  it('writes the same text as JSON.stringify of the key-sorted value', () => {
    const value = { z: 'é\u2028"', a: [1.5, -0, 1e21, true, null, undefined, 'x'], m: { y: { b: [], a: {} } }, n: -12 };
    expect(canonicalJson(value)).toBe('{"a":[1.5,0,1e+21,true,null,null,"x"],"m":{"y":{"a":{},"b":[]}},"n":-12,"z":"é\u2028\\""}');
    expect(canonicalJson('text')).toBe('"text"');
  });

  it('signs and verifies a body nested 100,000 deep without overflowing the stack', async () => {
    const body = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    const deep = { method: 'POST', path: '/nodes/heartbeat', body };
    const headers = signNodeRequest(node, deep, { now });
    await expect(verifyNodeRequest(headers, deep, 300, { now })).resolves.toMatchObject({ ok: true });
  });

  it('writes dates by toJSON and leaves out functions and symbols like JSON.stringify', () => {
    const at = new Date(Date.UTC(2030, 0, 1));
    const value = { at, f: () => 1, s: Symbol('x'), list: [() => 1, Symbol('y'), at], o: { toJSON: 'not a function' } };
    expect(canonicalJson(value)).toBe('{"at":"2030-01-01T00:00:00.000Z","list":[null,null,"2030-01-01T00:00:00.000Z"],"o":{"toJSON":"not a function"}}');
  });

  it('writes null for an array item whose toJSON answers nothing, like JSON.stringify', () => {
    const value = [{ toJSON: () => undefined }, 1];
    expect(canonicalJson(value)).toBe(JSON.stringify(value));
    expect(canonicalJson(value)).toBe('[null,1]');
  });

  it('signs the method in upper case, whatever case the caller used', () => {
    expect(nodeRequestMessage({ ...request, method: 'post' })).toBe(nodeRequestMessage(request));
    expect(nodeRequestMessage(request)).toMatch(/^ocg-node-request POST \/nodes\/heartbeat [0-9a-f]{64}$/);
  });

  it('reads the first of repeated headers and treats empty ones as missing', async () => {
    const headers = signNodeRequest(node, request, { now });
    await expect(verifyNodeRequest({ ...headers, 'x-ocg-node': [node.address, 'x'] } as never, request, 300, { now })).resolves.toMatchObject({ ok: true });
    await expect(verifyNodeRequest({ ...headers, 'x-ocg-node': '' }, request, 300, { now })).resolves.toEqual({ ok: false, reason: 'missing-node-header' });
    await expect(verifyNodeRequest({ ...headers, authorization: '' }, request, 300, { now })).resolves.toEqual({ ok: false, reason: 'missing-signature' });
  });

  it('explains every failure', () => {
    const reasons = [
      'missing-node-header',
      'bad-node-address',
      'missing-signature',
      'malformed',
      'unexpected-message',
      'timestamp-required',
      'from-the-future',
      'expired',
      'bad-signature',
    ] as const;
    expect(reasons.map(describeNodeFailure)).toEqual([
      'Node signature rejected: missing x-ocg-node header (the node address)',
      'Node signature rejected: x-ocg-node is not a node address (base58 of 32 bytes)',
      'Node signature rejected: missing authorization header (a signed, timed auth header)',
      'Node signature rejected: authorization is not a signed auth header <message>:<signature>:<unix ms>',
      'Node signature rejected: the signature covers another method, path or body',
      'Node signature rejected: the signed header must carry a timestamp',
      'Node signature rejected: the signed header is dated in the future (check the node clock)',
      'Node signature rejected: the signed header has expired (check the node clock)',
      'Node signature rejected: the signature does not verify against the node address',
    ]);
  });
});
