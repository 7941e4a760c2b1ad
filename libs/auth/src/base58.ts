/** Base58 (Bitcoin alphabet) helpers that never throw on untrusted text. */
import bs58 from 'bs58';

export const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]+$/;

export function base58(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}

/**
 * Decodes `text` only if it yields exactly `size` bytes. The length cap comes
 * first because base58 decoding is quadratic: a megabyte of garbage in a
 * header must not cost more than a glance.
 */
export function decodeBase58Exact(text: unknown, size: number): Buffer | undefined {
  // Stryker disable next-line ConditionalExpression: a cost bound (decoding is quadratic); longer text decodes to more bytes and is refused below anyway
  if (typeof text !== 'string' || text.length === 0 || text.length > maxBase58Length(size)) return undefined;
  // Stryker disable next-line ConditionalExpression: decodeUnsafe refuses other characters too; this spares it the work
  if (!BASE58_TEXT.test(text)) return undefined;
  const bytes = bs58.decodeUnsafe(text);
  // Stryker disable next-line OptionalChaining: the alphabet check above means decodeUnsafe always returns bytes here
  return bytes?.length === size ? Buffer.from(bytes) : undefined;
}

/** Longest base58 text of `size` bytes: 44 for a key, 88 for a signature. */
function maxBase58Length(size: number): number {
  // Stryker disable next-line ArithmeticOperator: a looser cost bound changes no answer (see decodeBase58Exact)
  return Math.ceil((size * 8) / Math.log2(58));
}
