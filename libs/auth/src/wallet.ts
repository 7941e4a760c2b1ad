/**
 * ed25519 wallets. Address = base58 of the 32-byte public key; the secret is
 * the 32-byte seed (RFC 8032), not the 64-byte seed+public form some wallets
 * use. Signing and verifying go through node:crypto KeyObjects (OpenSSL),
 * about 8x faster than pure JS and byte-identical (ed25519 is deterministic).
 */
import { KeyObject, createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { base58, decodeBase58Exact } from './base58';

// DER headers that wrap a raw seed / public key as PKCS#8 / SPKI for OpenSSL.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const SEED_BYTES = 32;
const SIGNATURE_BYTES = 64;

export interface Wallet {
  address: string;
  publicKey: Buffer;
  /** The 32-byte seed. Seal it with encryptSecret before it touches storage. */
  secretKey: Buffer;
}

/**
 * A seed imported once into an OpenSSL key, for repeated signing. The key is
 * held in a private field: it never shows up in logs or JSON.
 */
export class WalletSigner {
  readonly address: string;
  readonly publicKey: Buffer;
  readonly #key: KeyObject;

  constructor(seed: Uint8Array) {
    if (!(seed instanceof Uint8Array) || seed.length !== SEED_BYTES) throw new TypeError('wallet seed must be 32 bytes');
    this.#key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    this.publicKey = createPublicKey(this.#key).export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
    this.address = base58(this.publicKey);
  }

  /** Raw 64-byte signature over the UTF-8 bytes of a string message. */
  sign(message: string | Uint8Array): Buffer {
    return sign(null, toBytes(message), this.#key);
  }
}

export function createSigner(seed: Buffer): WalletSigner {
  return new WalletSigner(seed);
}

export function generateWallet(): Wallet {
  return walletFromSeed(randomBytes(SEED_BYTES));
}

export function walletFromSeed(seed: Buffer): Wallet {
  const { address, publicKey } = new WalletSigner(seed);
  return { address, publicKey, secretKey: Buffer.from(seed) };
}

/** Base58 signature. Pass a WalletSigner when signing more than once: a seed is re-imported on every call. */
export function signMessage(signer: Buffer | WalletSigner, message: string | Uint8Array): string {
  return base58(asSigner(signer).sign(message));
}

export function asSigner(signer: Uint8Array | WalletSigner): WalletSigner {
  return signer instanceof WalletSigner ? signer : new WalletSigner(signer);
}

/** True only for a valid signature by `address`; any malformed input is simply false. */
export function verifySignature(address: string, message: string | Uint8Array, signatureBase58: string): boolean {
  const signature = decodeBase58Exact(signatureBase58, SIGNATURE_BYTES);
  if (signature === undefined) return false;
  return verifySignatureBytes(address, message, signature);
}

/**
 * verifySignature for a signature already decoded from base58 (a parsed auth
 * header holds its bytes): the same answers, without decoding it twice.
 */
export function verifySignatureBytes(address: string, message: string | Uint8Array, signature: Uint8Array): boolean {
  const args = verifyArguments(address, message, signature);
  // Stryker disable next-line ConditionalExpression: without it reading the missing arguments throws, and the catch below answers false alike
  if (args === undefined) return false;
  try {
    return verify(null, args.bytes, args.key, signature);
  } catch {
    // whatever verify cannot read is no valid signature
  }
  // Stryker disable next-line BooleanLiteral: unreachable today (a 64-byte signature, a key and bytes leave verify nothing to throw on); kept so a runtime change cannot turn "never throws" into a crash
  return false;
}

/**
 * verifySignatureBytes off the event loop: the check (about 0.1 ms of CPU,
 * most of what a signed request costs) runs in libuv's thread pool through
 * node:crypto's callback form, so a process verifying node requests uses
 * more than one core and its event loop keeps serving meanwhile. The same
 * answers; rejects only with SignatureChecksBusyError, when more checks wait
 * than {@link SIGNATURE_CHECKS_WAITING_MAX}.
 */
export function verifySignatureBytesAsync(address: string, message: string | Uint8Array, signature: Uint8Array): Promise<boolean> {
  const args = verifyArguments(address, message, signature);
  if (args === undefined) return Promise.resolve(false);
  return signatureChecks.check(args.key, args.bytes, signature);
}

/** Checks waiting for a thread beyond this many are refused, not queued without end: a flood of signed requests costs memory only up to here. */
export const SIGNATURE_CHECKS_WAITING_MAX = 4096;

/** A signature check refused because too many wait already: the caller answers 503 and the client tries again. */
export class SignatureChecksBusyError extends Error {
  constructor(waiting: number) {
    super(`${waiting} signature checks are waiting already`);
    this.name = 'SignatureChecksBusyError';
  }
}

interface WaitingCheck {
  key: KeyObject;
  bytes: Uint8Array;
  signature: Uint8Array;
  resolve: (ok: boolean) => void;
}

/**
 * Signature checks in libuv's thread pool, at most `running` there at once;
 * the rest wait here in arrival order, at most `waiting`. The pool's own
 * queue holds up to `running` (64 for the process's checks): deep enough that
 * its threads go from one check to the next without waiting for the event
 * loop to hand them another (on the 2-core test machine, handing over one at
 * a time cost 40-50% more CPU a claim than the checks on the event loop), and
 * shallow enough that another user of the pool (a DNS look-up, a file write)
 * waits behind at most 64 checks, about 1.5 ms with its 4 threads.
 */
export class SignatureChecks {
  private inPool = 0;
  private readonly queue: WaitingCheck[] = [];

  constructor(
    readonly running: number,
    readonly waiting: number,
  ) {}

  /** Checks in the pool now. */
  get active(): number {
    return this.inPool;
  }

  /** Checks waiting for a thread now. */
  get queued(): number {
    return this.queue.length;
  }

  check(key: KeyObject, bytes: Uint8Array, signature: Uint8Array): Promise<boolean> {
    if (this.inPool >= this.running && this.queued >= this.waiting) return Promise.reject(new SignatureChecksBusyError(this.waiting));
    return new Promise((resolve) => {
      const item = { key, bytes, signature, resolve };
      if (this.inPool < this.running) this.start(item);
      else this.queue.push(item);
    });
  }

  private start({ key, bytes, signature, resolve }: WaitingCheck): void {
    this.inPool++;
    const done = (ok: boolean) => {
      this.inPool--;
      resolve(ok);
      this.next();
    };
    try {
      verify(null, bytes, key, signature, (_err, ok) => done(ok === true));
    } catch {
      // whatever verify cannot read is no valid signature
      done(false);
    }
  }

  private next(): void {
    const item = this.queue.shift();
    if (item !== undefined) this.start(item);
  }
}

/** Checks in the pool at once (see SignatureChecks). */
const SIGNATURE_CHECKS_RUNNING = 64;
const signatureChecks = new SignatureChecks(SIGNATURE_CHECKS_RUNNING, SIGNATURE_CHECKS_WAITING_MAX);

/** The key and message bytes a verify needs, or undefined when the inputs cannot hold a valid signature. */
function verifyArguments(address: string, message: string | Uint8Array, signature: Uint8Array): { key: KeyObject; bytes: Uint8Array } | undefined {
  const key = publicKeyObject(address);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: without it verify throws on the missing part and the catch answers false alike
  if (signature.length !== SIGNATURE_BYTES || key === undefined) return undefined;
  // Stryker disable next-line ConditionalExpression: without it verify throws on a non-byte message and the catch answers false alike
  if (typeof message !== 'string' && !(message instanceof Uint8Array)) return undefined;
  return { key, bytes: toBytes(message) };
}

/**
 * Base58 text that decodes to exactly 32 bytes (it does not check the point is
 * on the curve). An address whose key was imported already (every node that
 * signed a request lately) decoded so before, and is not decoded again.
 */
export function isAddress(text: string): boolean {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: the cache only saves the decoding; without it (a false there) every answer is the same
  return publicKeys.has(text) || decodeBase58Exact(text, SEED_BYTES) !== undefined;
}

function toBytes(message: string | Uint8Array): Uint8Array {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: crypto.verify reads a string as UTF-8 itself
  return typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
}

// Verifiers see the same few addresses again and again (a node, a job's
// poster), and importing a public key costs nearly as much as the verify
// itself (~75 vs ~105 us), so recent ones are kept (lru-cache: least recently used out first;
// a failed import is kept as `false`, the cache takes no null).
const publicKeys = new LRUCache<string, KeyObject | false>({ max: 1024 });

function publicKeyObject(address: string): KeyObject | undefined {
  let key = publicKeys.get(address);
  // Stryker disable next-line ConditionalExpression: the cache only saves the key import; every answer is the same without it
  if (key === undefined) {
    const raw = decodeBase58Exact(address, SEED_BYTES);
    // Stryker disable next-line ConditionalExpression: importing undefined throws, and importPublicKey answers null alike
    if (raw === undefined) return undefined;
    key = importPublicKey(raw) ?? false;
    // Stryker disable next-line CallExpression: without caching, the key is imported again with the same result
    publicKeys.set(address, key);
  }
  return key || undefined;
}

/** null when the bytes are not a usable ed25519 point, so the failure is cached too. */
function importPublicKey(raw: Buffer): KeyObject | null {
  try {
    return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    // not a usable key: remembered as null
  }
  return null;
}
