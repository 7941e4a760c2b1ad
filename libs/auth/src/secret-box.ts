/**
 * Secrets at rest (wallet seeds, API key text): AES-256-GCM under one 32-byte
 * master key. Text form `v1.<iv>.<tag>.<ciphertext>`, each part base64url
 * without padding; the version lets us rotate the algorithm or key later.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEX_KEY = /^[0-9a-fA-F]+$/;
const BASE64_KEY = /^[A-Za-z0-9+/_-]+={0,2}$/;

export class MasterKeyError extends Error {
  override name = 'MasterKeyError';
}

/** The sealed text was altered, or the key or the aad is not the one it was sealed with. */
export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
}

/**
 * Parses the configured master key: 64 hex characters, or base64 / base64url
 * of 32 bytes. Hex is tried first because 64 hex characters are also valid
 * base64 (of 48 bytes). Surrounding whitespace (a newline from a secrets
 * file) is ignored.
 */
export function parseMasterKey(text: string): Buffer {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (trimmed === '') throw new MasterKeyError('master key is empty: expected 32 bytes as 64 hex characters or base64');
  if (HEX_KEY.test(trimmed) && trimmed.length === KEY_BYTES * 2) return Buffer.from(trimmed, 'hex');
  if (!BASE64_KEY.test(trimmed)) {
    throw new MasterKeyError('master key is neither hex nor base64: expected 32 bytes as 64 hex characters or base64');
  }
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES) {
    const hexHint = HEX_KEY.test(trimmed) ? ` (as hex: ${trimmed.length} characters, expected 64)` : '';
    throw new MasterKeyError(`master key decodes to ${key.length} bytes, expected 32${hexHint}`);
  }
  return key;
}

/**
 * The public development key: its derivation is in this file, so anything
 * sealed under it is readable by anyone. Only a machine declared a
 * development machine may use it (resolveMasterKey).
 */
export const DEVELOPMENT_MASTER_KEY = createHash('sha256').update('ocg development master key: never use in production').digest();

/**
 * The master key a service seals with: the configured one, or the public
 * development key when none is configured on a development machine. A
 * configured key equal to the development key counts as the development key.
 * The error names the setting and never quotes the key.
 */
export function resolveMasterKey(text: string | undefined, developmentMachine: boolean): Buffer {
  const key = text === undefined ? DEVELOPMENT_MASTER_KEY : parseMasterKey(text);
  if (key.equals(DEVELOPMENT_MASTER_KEY) && !developmentMachine) {
    throw new MasterKeyError(
      text === undefined
        ? 'is required: without it secrets would be sealed with the public development key (set DEVELOPMENT_MACHINE=true on a development machine)'
        : 'is the public development key; set a key of your own (or DEVELOPMENT_MACHINE=true on a development machine)',
    );
  }
  return key;
}

/**
 * Seals `plaintext` with a fresh random IV. Pass `aad` naming the owner
 * (e.g. `wallet:<userId>`) so a sealed value copied to another row fails.
 */
export function encryptSecret(masterKey: Buffer, plaintext: Buffer | string, aad?: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyObjectOf(masterKey), iv);
  // Stryker disable next-line StringLiteral: 'utf8' is Buffer.from's default encoding
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: cipher.update reads a string as utf8 and copies a Buffer alike
  const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
  const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
  return [VERSION, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
}

/** Opens a sealed value; throws SecretDecryptionError on tamper, wrong key or wrong aad. */
export function decryptSecret(masterKey: Buffer, sealed: string, aad?: string): Buffer {
  const key = keyObjectOf(masterKey);
  // Stryker disable next-line ArrayDeclaration: any list but one of 4 parts is refused alike
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretDecryptionError(`sealed secret is not in the ${VERSION} format`);
  const [iv, tag, ciphertext] = parts.slice(1).map(strictBase64url);
  if (iv?.length !== IV_BYTES || tag?.length !== TAG_BYTES || ciphertext === undefined) {
    throw new SecretDecryptionError(`sealed secret is not in the ${VERSION} format`);
  }
  // Stryker disable next-line ObjectLiteral: the tag length is checked above; this only repeats it to node
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  // Stryker disable next-line StringLiteral: 'utf8' is Buffer.from's default encoding
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new SecretDecryptionError('sealed secret failed authentication (tampered, wrong master key or wrong aad)');
  }
}

function checkKey(masterKey: Buffer): Buffer {
  if (!Buffer.isBuffer(masterKey) || masterKey.length !== KEY_BYTES) {
    throw new MasterKeyError('master key must be a 32-byte Buffer (use parseMasterKey)');
  }
  return masterKey;
}

/**
 * The key as node's key object, made once per master key: a raw Buffer is
 * made into one on every cipher, most of a small seal's CPU (ADR 0075).
 */
const keyObjects = new WeakMap<Buffer, KeyObject>();

function keyObjectOf(masterKey: Buffer): KeyObject {
  let key = keyObjects.get(checkKey(masterKey));
  if (!key) keyObjects.set(masterKey, (key = createSecretKey(masterKey)));
  return key;
}

/**
 * Node's decoder skips stray characters and ignores spare low bits, so two
 * texts can open to the same bytes; accepting only the canonical text means
 * any edit of the sealed string is detected.
 */
function strictBase64url(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}
