import { createPublicKey, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import bs58 from 'bs58';
import {
  SignatureChecks,
  SignatureChecksBusyError,
  createSigner,
  generateWallet,
  isAddress,
  signMessage,
  verifySignature,
  verifySignatureBytesAsync,
  walletFromSeed,
} from '../src/wallet';

ed.hashes.sha512 = sha512;
// Fewer cross-checks per mutant under Stryker (PROPERTY_RUNS_SCALE, stryker.base.mjs): @noble signs slowly.
const CROSS_CHECKS = Math.max(20, Math.round(200 * Number(process.env.PROPERTY_RUNS_SCALE ?? 1)));

// RFC 8032 section 7.1, test 1 (empty message).
const RFC_SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
const RFC_PUBLIC = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex');
const RFC_SIGNATURE = Buffer.from('e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b', 'hex');

describe('wallets', () => {
  it('derives the RFC 8032 public key and signature from the RFC seed', () => {
    const wallet = walletFromSeed(RFC_SEED);
    expect(wallet.publicKey.equals(RFC_PUBLIC)).toBe(true);
    expect(signMessage(RFC_SEED, '')).toBe(bs58.encode(RFC_SIGNATURE));
  });

  it('uses base58 of the 32-byte public key as the address', () => {
    const wallet = generateWallet();
    expect(wallet.secretKey).toHaveLength(32);
    expect(wallet.publicKey).toHaveLength(32);
    expect(wallet.address).toBe(bs58.encode(wallet.publicKey));
    expect(Buffer.from(ed.getPublicKey(wallet.secretKey)).equals(wallet.publicKey)).toBe(true);
    expect(walletFromSeed(wallet.secretKey)).toEqual(wallet);
  });

  it('refuses seeds that are not 32 bytes', () => {
    expect(() => walletFromSeed(randomBytes(31))).toThrow(/32 bytes/);
    expect(() => createSigner(randomBytes(64))).toThrow(/32 bytes/);
  });

  it('signs byte-identically to @noble/ed25519 for many random seeds and messages', () => {
    for (let i = 0; i < CROSS_CHECKS; i++) {
      const seed = randomBytes(32);
      const message = randomBytes(i % 7 === 0 ? 0 : 1 + ((i * 37) % 500));
      const ours = signMessage(createSigner(seed), message);
      expect(ours).toBe(bs58.encode(ed.sign(message, seed)));
      expect(ed.verify(bs58.decode(ours), message, ed.getPublicKey(seed))).toBe(true);
    }
  });

  it('verifies signatures made by @noble/ed25519', () => {
    const seed = randomBytes(32);
    const message = new TextEncoder().encode('héllo: wörld');
    expect(verifySignature(bs58.encode(ed.getPublicKey(seed)), 'héllo: wörld', bs58.encode(ed.sign(message, seed)))).toBe(true);
  });

  it('signs a string as its UTF-8 bytes, with a seed or a cached signer alike', () => {
    const wallet = generateWallet();
    const signer = createSigner(wallet.secretKey);
    expect(signer.address).toBe(wallet.address);
    expect(signMessage(signer, 'ünïcode')).toBe(signMessage(wallet.secretKey, Buffer.from('ünïcode', 'utf8')));
  });

  it('keeps the signing key out of logs and JSON', () => {
    const wallet = generateWallet();
    const signer = createSigner(wallet.secretKey);
    const shown = `${inspect(signer, { depth: 5, showHidden: true })} ${JSON.stringify(signer)}`;
    expect(shown).not.toContain(wallet.secretKey.toString('hex'));
    expect(shown).not.toContain(wallet.secretKey.toString('base64'));
    expect(Object.values(signer).some((value) => typeof value === 'object' && value?.constructor?.name?.includes('KeyObject'))).toBe(false);
  });
});

describe('verifySignature', () => {
  const wallet = generateWallet();
  const signature = signMessage(wallet.secretKey, 'job:abc');

  it("accepts the signer's signature on the same message", () => {
    expect(verifySignature(wallet.address, 'job:abc', signature)).toBe(true);
    expect(verifySignature(wallet.address, Buffer.from('job:abc'), signature)).toBe(true);
  });

  it('rejects another address, an edited message and an edited signature', () => {
    expect(verifySignature(generateWallet().address, 'job:abc', signature)).toBe(false);
    expect(verifySignature(wallet.address, 'job:abd', signature)).toBe(false);
    expect(verifySignature(wallet.address, 'job:abc ', signature)).toBe(false);
    const i = 40;
    const edited = signature.slice(0, i) + (signature[i] === 'A' ? 'B' : 'A') + signature.slice(i + 1);
    expect(verifySignature(wallet.address, 'job:abc', edited)).toBe(false);
  });

  it('returns false, never throws, on garbage', () => {
    const garbage: unknown[] = ['', 'abc', '0OIl', 'x'.repeat(1_000_000), signature.slice(0, -2), `${signature}2`, bs58.encode(randomBytes(64)), null, undefined, 42, {}, []];
    for (const value of garbage) {
      expect(verifySignature(wallet.address, 'job:abc', value as string)).toBe(false);
      expect(verifySignature(value as string, 'job:abc', signature)).toBe(false);
      expect(verifySignature(wallet.address, value as string, signature)).toBe(false);
    }
  });

  it('rejects a signature under a 32-byte address that is not a curve point', () => {
    // y = 2 has no matching x on edwards25519, so this is no public key at all.
    const notAPoint = Buffer.alloc(32);
    notAPoint[0] = 2;
    expect(verifySignature(bs58.encode(notAPoint), 'job:abc', signature)).toBe(false);
  });
});

describe('isAddress', () => {
  it('accepts base58 of exactly 32 bytes and nothing else', () => {
    expect(isAddress(generateWallet().address)).toBe(true);
    expect(isAddress('11111111111111111111111111111111')).toBe(true);
    for (const text of ['', bs58.encode(randomBytes(31)), bs58.encode(randomBytes(33)), `${generateWallet().address}0`, 'x'.repeat(100000)]) {
      expect(isAddress(text)).toBe(false);
    }
    expect(isAddress(undefined as never)).toBe(false);
  });
});

describe('verifySignatureBytesAsync', () => {
  const wallet = generateWallet();
  const signature = Buffer.from(bs58.decode(signMessage(wallet.secretKey, 'job:abc')));
  const edited = Buffer.from(signature);
  edited[10] ^= 1;
  const notAPoint = Buffer.alloc(32);
  notAPoint[0] = 2;

  it('answers what verifySignature answers, for good and bad signatures alike', async () => {
    const cases: Array<[string, unknown, Buffer, boolean]> = [
      [wallet.address, 'job:abc', signature, true],
      [wallet.address, Buffer.from('job:abc'), signature, true],
      [generateWallet().address, 'job:abc', signature, false],
      [wallet.address, 'job:abd', signature, false],
      [wallet.address, 'job:abc', edited, false],
      [wallet.address, 'job:abc', signature.subarray(0, 63), false],
      ['not-an-address', 'job:abc', signature, false],
      [bs58.encode(notAPoint), 'job:abc', signature, false],
      [wallet.address, 42, signature, false],
      [wallet.address, null, signature, false],
    ];
    for (const [address, message, sig, expected] of cases) {
      await expect(verifySignatureBytesAsync(address, message as string, sig)).resolves.toBe(expected);
      expect(verifySignature(address, message as string, bs58.encode(sig))).toBe(expected);
    }
  });
});

describe('SignatureChecks', () => {
  const wallet = generateWallet();
  const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(bs58.decode(wallet.address))]), format: 'der', type: 'spki' });
  const message = Buffer.from('job:abc');
  const signature = Buffer.from(bs58.decode(signMessage(wallet.secretKey, 'job:abc')));

  it('runs at most `running` checks in the pool, the rest waiting in arrival order', async () => {
    const checks = new SignatureChecks(1, 10);
    const order: number[] = [];
    const answers = Array.from({ length: 5 }, (_, i) =>
      checks.check(key, message, i === 2 ? Buffer.alloc(64) : signature).then((ok) => {
        expect(checks.active).toBeLessThanOrEqual(1);
        order.push(i);
        return ok;
      }),
    );
    expect(checks.active).toBe(1);
    expect(checks.queued).toBe(4);
    await expect(Promise.all(answers)).resolves.toEqual([true, true, false, true, true]);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect([checks.active, checks.queued]).toEqual([0, 0]);
  });

  it('with no room to wait, takes checks while the pool has room and refuses the rest', async () => {
    const checks = new SignatureChecks(1, 0);
    const admitted = checks.check(key, message, signature);
    await expect(checks.check(key, message, signature)).rejects.toBeInstanceOf(SignatureChecksBusyError);
    await expect(admitted).resolves.toBe(true);
  });

  it('answers false, never throws, for what verify cannot read', async () => {
    const checks = new SignatureChecks(1, 1);
    await expect(checks.check(key, message, 42 as never)).resolves.toBe(false);
    expect([checks.active, checks.queued]).toEqual([0, 0]);
    await expect(checks.check(key, message, signature)).resolves.toBe(true);
  });

  it('keeps several checks in the pool at once when allowed', async () => {
    const checks = new SignatureChecks(3, 10);
    const answers = Array.from({ length: 5 }, () => checks.check(key, message, signature));
    expect([checks.active, checks.queued]).toEqual([3, 2]);
    await expect(Promise.all(answers)).resolves.toEqual([true, true, true, true, true]);
  });

  it('refuses a check when `waiting` wait already, and takes one again once there is room', async () => {
    const checks = new SignatureChecks(1, 2);
    const admitted = [checks.check(key, message, signature), checks.check(key, message, signature), checks.check(key, message, signature)];
    await expect(checks.check(key, message, signature)).rejects.toBeInstanceOf(SignatureChecksBusyError);
    await expect(checks.check(key, message, signature)).rejects.toThrow('2 signature checks are waiting already');
    await expect(Promise.all(admitted)).resolves.toEqual([true, true, true]);
    await expect(checks.check(key, message, signature)).resolves.toBe(true);
  });
});
