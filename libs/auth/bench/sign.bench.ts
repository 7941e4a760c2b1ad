/**
 * Median time to sign 100 messages with a cached node:crypto signer against
 * @noble/ed25519 (pure JS) in the same run, plus the uncached and verify
 * paths for context. Target: 100 signatures well under 20 ms.
 *
 *   tsx libs/auth/bench/sign.bench.ts   (BENCH_ROUNDS, default 41)
 */
import { randomBytes } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { createSigner, generateWallet, signMessage, verifySignature } from '../src';

ed.hashes.sha512 = sha512;

const rounds = Number(process.env.BENCH_ROUNDS ?? 41);
const BATCH = 100;
const TARGET_MS = 20;

/** Median over `rounds` of one batch of 100 calls, after a warm-up batch. */
function medianMs(batch: () => void): number {
  batch();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    batch();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

function main(): void {
  const wallet = generateWallet();
  const signer = createSigner(wallet.secretKey);
  // Distinct messages like a sign-messages call: one per running job.
  const messages = Array.from({ length: BATCH }, (_, i) => `job:${randomBytes(16).toString('hex')}:${i}`);
  const encoded = messages.map((m) => new TextEncoder().encode(m));
  const signatures = messages.map((m) => signMessage(signer, m));

  const node = medianMs(() => messages.forEach((m) => signMessage(signer, m)));
  const noble = medianMs(() => encoded.forEach((m) => ed.sign(m, wallet.secretKey)));
  const uncached = medianMs(() => messages.forEach((m) => signMessage(wallet.secretKey, m)));
  const verify = medianMs(() => messages.forEach((m, i) => verifySignature(wallet.address, m, signatures[i])));

  console.log(`bench auth: ${BATCH} ed25519 signatures, median of ${rounds} rounds`);
  console.log(`  node:crypto, cached signer:   ${node.toFixed(2)} ms (target < ${TARGET_MS} ms) ${node < TARGET_MS ? 'OK' : 'ABOVE TARGET'}`);
  console.log(`  @noble/ed25519 (sync):        ${noble.toFixed(2)} ms`);
  console.log(`  ratio noble/node:crypto:      ${(noble / node).toFixed(1)}x`);
  console.log(`  node:crypto, seed per call:   ${uncached.toFixed(2)} ms (${(uncached / node).toFixed(1)}x the cached signer)`);
  console.log(`  verifySignature x${BATCH}:         ${verify.toFixed(2)} ms`);
}

main();
