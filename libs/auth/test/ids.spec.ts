import { isRandomId, randomId, safeEqual } from '../src/ids';

describe('randomId', () => {
  it('makes <prefix>_<base58 of 16 bytes> ids that isRandomId recognises', () => {
    const id = randomId('key');
    expect(id).toMatch(/^key_[1-9A-HJ-NP-Za-km-z]{16,22}$/);
    expect(isRandomId('key', id)).toBe(true);
    expect(randomId('key_')).toMatch(/^key_[^_]+$/);
  });

  it('never repeats in ten thousand', () => {
    expect(new Set(Array.from({ length: 10_000 }, () => randomId('job'))).size).toBe(10_000);
  });

  it('refuses prefixes that are not lowercase letters and digits', () => {
    for (const prefix of ['', 'Key', '1key', 'key__', 'api-key', 'k y']) expect(() => randomId(prefix)).toThrow(/id prefix/);
  });

  it('does not recognise another prefix or a damaged id', () => {
    const id = randomId('key');
    for (const text of [id.replace('key_', 'job_'), id.slice(0, 8), `${id}0`, 'key_', `key_${'z'.repeat(40)}`]) {
      expect(isRandomId('key', text)).toBe(false);
    }
    expect(isRandomId('key', undefined as never)).toBe(false);
  });
});

describe('safeEqual', () => {
  it('is true only for equal content, strings and bytes alike', () => {
    expect(safeEqual('internal-secret', 'internal-secret')).toBe(true);
    expect(safeEqual('internal-secret', Buffer.from('internal-secret'))).toBe(true);
    expect(safeEqual('internal-secret', 'internal-secreT')).toBe(false);
    expect(safeEqual('internal-secret', 'internal-secret-longer')).toBe(false);
    expect(safeEqual('', 'x')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });
});
