import { createHash } from 'node:crypto';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { create as createDigest } from 'multiformats/hashes/digest';
import { sha256 } from 'multiformats/hashes/sha2';

const SHA256_BYTES = 32;

const rawSha256Cid = (digest: Uint8Array): string => CID.create(1, raw.code, createDigest(sha256.code, digest)).toString();

/**
 * The content id IPFS gives these bytes stored as one raw block: CIDv1,
 * codec raw, multihash sha2-256, printed in base32 (`bafkrei…`).
 */
export function cidOf(bytes: Uint8Array): string {
  return rawSha256Cid(createHash('sha256').update(bytes).digest());
}

/**
 * True for a CIDv1 raw sha2-256 id in its canonical base32 text: a 32-byte
 * digest whose id, as `cidOf` prints it, is this text. Printing it again
 * checks version, codec, hash function and base at once (a CIDv0, another
 * codec or hash, or base58 text prints otherwise).
 */
export function isRawSha256Cid(text: string): boolean {
  try {
    const { multihash } = CID.parse(text);
    return multihash.size === SHA256_BYTES && rawSha256Cid(multihash.digest) === text;
  } catch {
    return false;
  }
}
