import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import bs58 from 'bs58';
import { decryptSecret, parseMasterKey } from '@ocg/auth';
import type { Harness } from '../harness';

ed.hashes.sha512 = sha512;

/** The user's wallet seed, opened the way the service opens it (tests know the master key). */
export async function walletSeedOf(cm: Harness, userId: string): Promise<Buffer> {
  const [row] = await cm.db.query('SELECT wallet_seed_sealed FROM users WHERE id = $1', [userId]);
  return decryptSecret(parseMasterKey(cm.config.MASTER_KEY!), row.wallet_seed_sealed, `wallet:${userId}`);
}

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/** The base58 signature @noble/ed25519 makes over `text` with `seed`. */
export const nobleSignature = (seed: Buffer, text: string): string => bs58.encode(ed.sign(utf8(text), seed));

/** The base58 signature node:crypto (OpenSSL) makes over `text` with `seed`. */
export function nodeSignature(seed: Buffer, text: string): string {
  const key = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
  return bs58.encode(sign(null, utf8(text), key));
}

/** Verifies with node:crypto against the base58 address alone. */
export function verifiesFor(address: string, text: string, signature: string): boolean {
  const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(bs58.decode(address))]), format: 'der', type: 'spki' });
  return verify(null, utf8(text), key, Buffer.from(bs58.decode(signature)));
}
