/** Prefixed random ids and a constant-time comparison. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { base58, decodeBase58Exact } from './base58';

const PREFIX = /^([a-z][a-z0-9]*)_?$/;
const ID_BYTES = 16;

/**
 * `<prefix>_<base58 of 16 random bytes>`, e.g. randomId('key') -> `key_3x9...`.
 * `prefix` may be given with or without its trailing '_'. 128 bits: no
 * collision check needed, and ids are not guessable.
 */
export function randomId(prefix: string): string {
  return `${idPrefix(prefix)}_${base58(randomBytes(ID_BYTES))}`;
}

/** Cheap shape check for an id from a URL before any lookup. */
export function isRandomId(prefix: string, text: string): boolean {
  const head = `${idPrefix(prefix)}_`;
  return typeof text === 'string' && text.startsWith(head) && decodeBase58Exact(text.slice(head.length), ID_BYTES) !== undefined;
}

/**
 * Constant-time equality for secrets (tokens, internal credentials). Both
 * sides are hashed first so neither the content nor the length of the
 * expected value leaks through timing.
 */
export function safeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function digest(value: string | Uint8Array): Buffer {
  return createHash('sha256').update(value).digest();
}

function idPrefix(prefix: string): string {
  const match = PREFIX.exec(prefix);
  if (match === null) throw new TypeError(`id prefix must be lowercase letters and digits, starting with a letter, got ${JSON.stringify(prefix)}`);
  return match[1];
}
