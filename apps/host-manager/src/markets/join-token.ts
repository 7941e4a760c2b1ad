/**
 * Market join tokens: `mjt_` + base58 of 32 random bytes. Only the SHA-256
 * is stored (like API keys, the token holds 256 random bits, so a plain hash
 * is enough); the token is shown once, at creation or rotation.
 */
import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { safeEqual } from '@ocg/auth';

const PREFIX = 'mjt_';

export function generateJoinToken(): { token: string; hash: string } {
  const token = PREFIX + bs58.encode(randomBytes(32));
  return { token, hash: hashJoinToken(token) };
}

export function hashJoinToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant time, so the comparison leaks nothing about the stored hash. */
export function joinTokenMatches(token: string, hash: string): boolean {
  return safeEqual(hashJoinToken(token), hash);
}

/** A new market address: base58 of 32 random bytes, like job and wallet addresses. */
export function generateAddress(): string {
  return bs58.encode(randomBytes(32));
}
