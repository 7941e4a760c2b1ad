/**
 * API key text: `ocg_` + 44 base58 characters of 32 random bytes + 6 base58
 * characters of checksum, 54 characters in all. The fixed length and the
 * checksum let leak scanners match keys offline with few false positives,
 * and let the gateway drop garbage before any database or cache lookup.
 */
import { createHash, hash, randomBytes } from 'node:crypto';
import { BASE58_ALPHABET, base58, decodeBase58Exact } from './base58';

export const API_KEY_PREFIX = 'ocg_';
const BODY_LENGTH = 44;
const CHECKSUM_LENGTH = 6;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
/**
 * For secret scanners: finds a key in free text (the checksum then confirms
 * it). No `g` flag, so `.test()` is stateless; add flags with `new RegExp`.
 */
export const API_KEY_PATTERN = /\bocg_[1-9A-HJ-NP-Za-km-z]{50}\b/;
const WHOLE_KEY = /^ocg_[1-9A-HJ-NP-Za-km-z]{50}$/;

export function generateApiKey(): string {
  // 94% of 32-byte values encode to 44 characters; redrawing the rest keeps
  // the key a fixed length at a cost of 0.09 bits of entropy.
  for (;;) {
    const body = base58(randomBytes(32));
    if (body.length === BODY_LENGTH) return `${API_KEY_PREFIX}${body}${apiKeyChecksum(body)}`;
  }
}

/** Prefix, alphabet, length and checksum: a cheap offline check, no lookup. */
export function isWellFormedApiKey(text: string): boolean {
  if (typeof text !== 'string' || !WHOLE_KEY.test(text)) return false;
  const body = text.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY_LENGTH);
  if (text.slice(-CHECKSUM_LENGTH) !== apiKeyChecksum(body)) return false;
  return decodeBase58Exact(body, 32) !== undefined;
}

/**
 * The database lookup column: SHA-256 hex of the whole key. A plain hash is
 * enough (no salt, no slow KDF) because the key carries 256 random bits.
 */
export function apiKeyLookupHash(key: string): string {
  // One-shot: createHash builds a stream object per call, a few µs on every validation.
  return hash('sha256', key, 'hex');
}

/** First 32 bits of SHA-256(prefix + body) as exactly 6 base58 digits, most significant first. */
function apiKeyChecksum(body: string): string {
  let n = createHash('sha256')
    .update(API_KEY_PREFIX + body, 'utf8')
    .digest()
    .readUInt32BE(0);
  let digits = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    digits = BASE58_ALPHABET[n % 58] + digits;
    n = Math.floor(n / 58);
  }
  return digits;
}
