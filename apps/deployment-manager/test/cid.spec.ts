import { createHash } from 'node:crypto';
import { CID } from 'multiformats/cid';
import { base58btc } from 'multiformats/bases/base58';
import * as raw from 'multiformats/codecs/raw';
import { create as createDigest } from 'multiformats/hashes/digest';
import { cidOf, isRawSha256Cid } from '../src/cas/cid';

const DAG_PB = 0x70;
const SHA2_256 = 0x12;
const SHA2_512 = 0x13;
const BLAKE2B_256 = 0xb220;

const sha256 = (text: string) => createHash('sha256').update(text).digest();
const idOf = (version: 0 | 1, codec: number, hash: number, digest: Uint8Array) => CID.create(version, codec, createDigest(hash, digest));

describe('content ids', () => {
  it('gives the id IPFS gives the same bytes as a raw block', () => {
    expect(cidOf(Buffer.from('hello'))).toBe('bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq');
  });

  it('gives different ids to different bytes and the same id to the same bytes', () => {
    expect(cidOf(Buffer.from('a'))).not.toBe(cidOf(Buffer.from('b')));
    expect(cidOf(Buffer.from('{"x":1}'))).toBe(cidOf(Buffer.from('{"x":1}')));
  });

  it('recognises only canonical CIDv1 raw sha2-256 ids', () => {
    expect(isRawSha256Cid(cidOf(Buffer.from('x')))).toBe(true);
    expect(isRawSha256Cid(idOf(1, raw.code, SHA2_256, sha256('x')).toString())).toBe(true);
    expect(isRawSha256Cid('QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG')).toBe(false);
    expect(isRawSha256Cid('not a cid')).toBe(false);
    expect(isRawSha256Cid('')).toBe(false);
  });

  it('refuses a CIDv0 of the same digest (version)', () => {
    expect(isRawSha256Cid(idOf(0, DAG_PB, SHA2_256, sha256('x')).toString())).toBe(false);
  });

  it('refuses a CIDv1 of another codec with the same digest (codec)', () => {
    expect(isRawSha256Cid(idOf(1, DAG_PB, SHA2_256, sha256('x')).toString())).toBe(false);
  });

  it('refuses another hash function, of another length or of the same one (hash)', () => {
    expect(isRawSha256Cid(idOf(1, raw.code, SHA2_512, createHash('sha512').update('x').digest()).toString())).toBe(false);
    expect(isRawSha256Cid(idOf(1, raw.code, BLAKE2B_256, sha256('x')).toString())).toBe(false);
  });

  it('refuses a sha2-256 multihash whose digest is not 32 bytes', () => {
    expect(isRawSha256Cid(idOf(1, raw.code, SHA2_256, sha256('x').subarray(0, 20)).toString())).toBe(false);
    expect(isRawSha256Cid(idOf(1, raw.code, SHA2_256, Buffer.concat([sha256('x'), Buffer.from([0])])).toString())).toBe(false);
  });

  it('refuses the right id in another base than base32', () => {
    expect(isRawSha256Cid(idOf(1, raw.code, SHA2_256, sha256('x')).toString(base58btc))).toBe(false);
  });
});
