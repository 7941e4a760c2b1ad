import { cidOf, isRawSha256Cid } from '../src/cas/cid';

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
    expect(isRawSha256Cid('QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG')).toBe(false);
    expect(isRawSha256Cid('not a cid')).toBe(false);
    expect(isRawSha256Cid('')).toBe(false);
  });
});
