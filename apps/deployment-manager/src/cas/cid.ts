import { createHash } from 'node:crypto';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { create as createDigest } from 'multiformats/hashes/digest';
import { sha256 } from 'multiformats/hashes/sha2';

/**
 * The content id IPFS gives these bytes stored as one raw block: CIDv1,
 * codec raw, multihash sha2-256, printed in base32 (`bafkrei…`).
 */
export function cidOf(bytes: Uint8Array): string {
  const digest = createHash('sha256').update(bytes).digest();
  return CID.create(1, raw.code, createDigest(sha256.code, digest)).toString();
}

/** True for a CIDv1 raw sha2-256 id in its canonical base32 text. */
export function isRawSha256Cid(text: string): boolean {
  try {
    const cid = CID.parse(text);
    return cid.version === 1 && cid.code === raw.code && cid.multihash.code === sha256.code && cid.toString() === text;
  } catch {
    return false;
  }
}
