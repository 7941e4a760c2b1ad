import { createAuthHeader, nodeApiMessage, parseAuthHeader, signForExternal, verifyAuthHeader, verifyAuthHeaderAsync, type VerifyAuthHeaderOptions } from '../src/auth-header';
import { createSigner, generateWallet, verifySignature } from '../src/wallet';

const now = 1_750_000_000_000;
const wallet = generateWallet();
const signer = createSigner(wallet.secretKey);

function header(message: string, at = now): string {
  return createAuthHeader(signer, message, { now: at }).header;
}

describe('signed auth headers', () => {
  it('accepts a fresh timed header and reports its message and timestamp', () => {
    const created = createAuthHeader(signer, 'job:abc', { now });
    expect(created.header).toBe(`job:abc:${created.signature}:${now}`);
    expect(created.timestamp).toBe(now);
    expect(verifyAuthHeader(created.header, wallet.address, { now })).toEqual({ ok: true, message: 'job:abc', timestamp: now });
  });

  it('includes the time unless told not to', () => {
    expect(createAuthHeader(signer, 'hello', { now }).timestamp).toBe(now);
    const untimed = createAuthHeader(wallet.secretKey, 'hello', { includeTime: false });
    expect(untimed).toEqual({ header: `hello:${untimed.signature}`, signature: untimed.signature });
    expect(verifyAuthHeader(untimed.header, wallet.address)).toEqual({ ok: true, message: 'hello' });
  });

  it('signs `${message}:${timestamp}` for the external signing endpoint, and the bare message without time', () => {
    const timed = signForExternal(signer, 'deploy 7', true, now);
    expect(timed).toEqual({ message: 'deploy 7', signature: timed.signature, timestamp: now });
    expect(verifySignature(wallet.address, `deploy 7:${now}`, timed.signature)).toBe(true);
    expect(verifySignature(wallet.address, 'deploy 7', timed.signature)).toBe(false);
    const bare = signForExternal(wallet.secretKey, 'ünïcode\nis fine here', false);
    expect(bare.timestamp).toBeUndefined();
    expect(verifySignature(wallet.address, 'ünïcode\nis fine here', bare.signature)).toBe(true);
    expect(createAuthHeader(signer, 'deploy 7', { now }).signature).toBe(timed.signature);
  });

  it('keeps messages containing colons whole, with or without time', () => {
    for (const message of ['a:b', 'job:42:7', 'x:', '::', 'ends:1234567890123:', 'ends:123456789012', 'http://node:8080/job/1']) {
      expect(verifyAuthHeader(header(message), wallet.address, { now })).toEqual({ ok: true, message, timestamp: now });
      const untimed = createAuthHeader(signer, message, { includeTime: false }).header;
      expect(verifyAuthHeader(untimed, wallet.address, { now })).toEqual({ ok: true, message });
    }
  });

  it('accepts a timed message that itself ends in a 13-digit number', () => {
    const message = `job:${now - 5}`;
    expect(verifyAuthHeader(header(message), wallet.address, { now })).toEqual({ ok: true, message, timestamp: now });
  });

  it('refuses to build an untimed header whose message ends in :<13 digits>', () => {
    expect(() => createAuthHeader(signer, `job:${now}`, { includeTime: false })).toThrow(/must not end in/);
  });

  it('rejects a timed header rewritten into an untimed one, so expiry cannot be stripped', () => {
    const { signature } = createAuthHeader(signer, 'job:abc', { now });
    expect(verifyAuthHeader(`job:abc:${now}:${signature}`, wallet.address, { now })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('rejects an edited message, an edited timestamp and another address', () => {
    const { signature } = createAuthHeader(signer, 'job:abc', { now });
    expect(verifyAuthHeader(`job:abd:${signature}:${now}`, wallet.address, { now })).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verifyAuthHeader(`job:abc:${signature}:${now + 1000}`, wallet.address, { now })).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verifyAuthHeader(header('job:abc'), generateWallet().address, { now })).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verifyAuthHeader(header('job:abc'), 'not-an-address', { now })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('expires a header older than 300 seconds by default, or maxAgeSeconds', () => {
    const h = header('job:abc');
    expect(verifyAuthHeader(h, wallet.address, { now: now + 300_000 }).ok).toBe(true);
    expect(verifyAuthHeader(h, wallet.address, { now: now + 300_001 })).toEqual({ ok: false, reason: 'expired' });
    expect(verifyAuthHeader(h, wallet.address, { now: now + 61_000, maxAgeSeconds: 60 })).toEqual({ ok: false, reason: 'expired' });
    expect(verifyAuthHeader(h, wallet.address, { now: now + 3_600_000, maxAgeSeconds: 7200 }).ok).toBe(true);
  });

  it('rejects a timestamp more than 30 seconds ahead by default, or clockSkewSeconds', () => {
    expect(verifyAuthHeader(header('job:abc', now + 30_000), wallet.address, { now }).ok).toBe(true);
    expect(verifyAuthHeader(header('job:abc', now + 30_001), wallet.address, { now })).toEqual({ ok: false, reason: 'from-the-future' });
    expect(verifyAuthHeader(header('job:abc', now + 5_000), wallet.address, { now, clockSkewSeconds: 2 })).toEqual({ ok: false, reason: 'from-the-future' });
  });

  it('demands a timestamp when requireTimestamp is set', () => {
    const untimed = createAuthHeader(signer, 'job:abc', { includeTime: false }).header;
    expect(verifyAuthHeader(untimed, wallet.address, { requireTimestamp: true })).toEqual({ ok: false, reason: 'timestamp-required' });
    expect(verifyAuthHeader(header('job:abc'), wallet.address, { now, requireTimestamp: true }).ok).toBe(true);
  });

  it('rejects any message but the expected one', () => {
    expect(verifyAuthHeader(header('job:abc'), wallet.address, { now, expectedMessage: 'job:abc' }).ok).toBe(true);
    expect(verifyAuthHeader(header('job:xyz'), wallet.address, { now, expectedMessage: 'job:abc' })).toEqual({ ok: false, reason: 'unexpected-message' });
  });

  it('calls garbage malformed and never throws', () => {
    const { signature } = createAuthHeader(signer, 'job:abc', { now });
    const garbage: unknown[] = [
      '',
      'job',
      `${now}`,
      `:${signature}`,
      `:${signature}:${now}`,
      `job:abc:${signature}:0${now}`,
      `job:abc:${signature}:${Math.floor(now / 1000)}`,
      `job:abc:not-base58!:${now}`,
      `job:abc:${signature.slice(0, 30)}:${now}`,
      `${'x'.repeat(20_000)}:${signature}:${now}`,
      undefined,
      null,
      42,
    ];
    for (const value of garbage) expect(verifyAuthHeader(value as string, wallet.address, { now })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses to build headers that would not survive HTTP, or with a timestamp that is not Unix ms', () => {
    for (const message of ['', ' lead', 'trail ', 'line\nbreak', 'tab\there', 'ünïcode']) {
      expect(() => createAuthHeader(signer, message, { now })).toThrow(TypeError);
    }
    expect(() => createAuthHeader(signer, 'job', { now: 1_750_000_000 })).toThrow(RangeError);
    expect(() => signForExternal(signer, 'job', true, now + 0.5)).toThrow(RangeError);
    expect(() => signForExternal(signer, '', false)).toThrow(TypeError);
  });

  it("parses from the right, checking the signature's shape but not its validity", () => {
    const sig = createAuthHeader(generateWallet().secretKey, 'other', { now }).signature;
    expect(parseAuthHeader(`a:b:${sig}:${now}`)).toEqual({ message: 'a:b', signature: sig, timestamp: now, signedText: `a:b:${now}` });
    expect(parseAuthHeader(`a:b:${sig}`)).toEqual({ message: 'a:b', signature: sig, signedText: 'a:b' });
    expect(parseAuthHeader(`a:b:SIG:${now}`)).toBeUndefined();
  });

  it('reads a last part as a timestamp only when it is exactly 13 digits (both anchors)', () => {
    const sig = createAuthHeader(signer, 'other', { now }).signature;
    expect(parseAuthHeader(`a:${sig}:${now}1`)).toBeUndefined();
    expect(parseAuthHeader(`a:${sig}:x${now}`)).toBeUndefined();
    expect(verifyAuthHeader(`${header('job')}9`, wallet.address, { now })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('accepts a header of exactly the maximum length, and nothing longer', () => {
    // Signatures are 87 or 88 characters: adjust the message until the header fits exactly.
    const limit = 16 * 1024;
    let message = '';
    let longest = '';
    for (let i = 0; i < 50 && longest.length !== limit; i++) {
      // the signature's length (87 or 88) depends on the message: fit the message to the one it got
      message = `${i}`.padEnd(limit - 88 - 2 - String(now).length, 'x');
      const { signature } = createAuthHeader(signer, message, { now });
      message = message.padEnd(limit - signature.length - 2 - String(now).length, 'x');
      longest = createAuthHeader(signer, message, { now }).header;
    }
    expect(longest).toHaveLength(16 * 1024);
    expect(verifyAuthHeader(longest, wallet.address, { now })).toEqual({ ok: true, message, timestamp: now });
    const tooLong = createAuthHeader(signer, `${message}xx`, { now }).header; // one or two over, whatever the signature length
    expect(verifyAuthHeader(tooLong, wallet.address, { now })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('reports no timestamp at all for an untimed header', () => {
    const { header: untimed } = createAuthHeader(signer, 'job', { includeTime: false });
    const check = verifyAuthHeader(untimed, wallet.address, { now });
    expect(check).toStrictEqual({ ok: true, message: 'job' });
  });

  it('signs a one-character message', () => {
    expect(verifyAuthHeader(header('x'), wallet.address, { now })).toEqual({ ok: true, message: 'x', timestamp: now });
  });

  it('builds the node API message from the node and the job, under its own prefix', () => {
    expect(nodeApiMessage('N0de', 'J0b')).toBe('ocg-node-api:N0de:J0b');
  });

  it('says what is wrong with a message or timestamp it refuses to sign', () => {
    expect(() => signForExternal(signer, '', true, now)).toThrow('message to sign must be a non-empty string');
    expect(() => createAuthHeader(signer, ' lead', { now })).toThrow('auth header message must be non-empty visible ASCII');
    expect(() => createAuthHeader(signer, 'job', { now: 42 })).toThrow('timestamp must be Unix time in milliseconds (13 digits), got 42');
  });

  it('answers the same off the event loop (verifyAuthHeaderAsync) as on it, for every outcome', async () => {
    const { signature } = createAuthHeader(signer, 'job:abc', { now });
    const cases: Array<[string, string, VerifyAuthHeaderOptions, string]> = [
      [header('job:abc'), wallet.address, { now }, 'ok'],
      [createAuthHeader(signer, 'job:abc', { includeTime: false }).header, wallet.address, {}, 'ok'],
      [`job:abd:${signature}:${now}`, wallet.address, { now }, 'bad-signature'],
      [header('job:abc'), generateWallet().address, { now }, 'bad-signature'],
      [header('job:abc'), 'not-an-address', { now }, 'bad-signature'],
      ['garbage', wallet.address, { now }, 'malformed'],
      [header('job:abc'), wallet.address, { now: now + 300_001 }, 'expired'],
      [header('job:abc', now + 30_001), wallet.address, { now }, 'from-the-future'],
      [createAuthHeader(signer, 'job:abc', { includeTime: false }).header, wallet.address, { requireTimestamp: true }, 'timestamp-required'],
      [header('job:xyz'), wallet.address, { now, expectedMessage: 'job:abc' }, 'unexpected-message'],
    ];
    for (const [h, address, opts, outcome] of cases) {
      const sync = verifyAuthHeader(h, address, opts);
      expect(sync.ok ? 'ok' : sync.reason).toBe(outcome);
      await expect(verifyAuthHeaderAsync(h, address, opts)).resolves.toEqual(sync);
    }
  });
});
