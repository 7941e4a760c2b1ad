import type { ValidatedKey } from '../../src/service/identity';
import { KeyCache } from '../../src/service/key-cache';

const alice = (id = 'key_a', extra: Partial<ValidatedKey> = {}): ValidatedKey => ({ apiKeyId: id, userId: 'usr_a', scopes: [], user: { id: 'usr_a' }, ...extra });

describe('KeyCache', () => {
  let now: number;
  const cache = (max = 10) => new KeyCache(1000, 100, max, () => now);
  beforeEach(() => (now = 10_000));

  it('keeps an answer until its TTL, counting the last millisecond as expired', () => {
    const c = cache();
    c.set('h', alice(), c.generation);
    now += 999;
    expect(c.get('h')).toEqual(alice());
    now += 1;
    expect(c.get('h')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('keeps a "not valid" answer only for the negative TTL', () => {
    const c = cache();
    c.set('h', null, c.generation);
    now += 99;
    expect(c.get('h')).toBeNull();
    now += 1;
    expect(c.get('h')).toBeUndefined();
  });

  it('never keeps an answer past the key expiry, nor one already expired', () => {
    const c = cache();
    c.set('h', alice('key_a', { expiresAt: now + 10 }), c.generation);
    now += 10;
    expect(c.get('h')).toBeUndefined();
    c.set('h2', alice('key_b', { expiresAt: now }), c.generation);
    expect(c.size).toBe(0);
  });

  it('does not cache an answer that started before an invalidation', () => {
    const c = cache();
    const generation = c.generation;
    c.dropKeyId('key_other');
    c.set('h', alice(), generation);
    expect(c.get('h')).toBeUndefined();
  });

  it('never caches an answer that started before any of several invalidations, of whatever kind', () => {
    const c = cache();
    const generation = c.generation;
    c.dropHash('h_other');
    c.dropKeyId('key_other');
    c.set('h', alice(), generation);
    expect(c.get('h')).toBeUndefined();
    c.set('bad', null, c.generation);
    const later = c.generation;
    c.dropUser('usr_other'); // passes over the cached "not valid" too
    expect(c.get('bad')).toBeNull();
    c.clear();
    c.set('h', alice(), later);
    expect(c.get('h')).toBeUndefined();
  });

  it('forgets every key id on clear, so an old id cannot drop a new entry under the same hash', () => {
    const c = cache();
    c.set('h1', alice('key_1'), c.generation);
    c.clear();
    c.set('h1', alice('key_9'), c.generation);
    c.dropKeyId('key_1');
    expect(c.get('h1')).toEqual(alice('key_9'));
  });

  it('evicts the oldest entry at the size bound, and replacing an entry does not evict', () => {
    const c = cache(2);
    c.set('h1', alice('key_1'), c.generation);
    c.set('h2', alice('key_2'), c.generation);
    c.set('h2', alice('key_2'), c.generation);
    expect([c.get('h1'), c.size]).toEqual([alice('key_1'), 2]);
    c.set('h3', alice('key_3'), c.generation);
    expect(c.get('h1')).toBeUndefined();
    expect(c.get('h2')).toEqual(alice('key_2'));
    expect(c.size).toBe(2);
    // the evicted entry's key id no longer points at a hash
    c.set('h1', alice('key_9'), c.generation);
    c.dropKeyId('key_1');
    expect(c.get('h1')).toEqual(alice('key_9'));
  });

  it('drops an entry by key id, every "not valid" with it, but not other valid keys', () => {
    const c = cache();
    c.set('h1', alice('key_1'), c.generation);
    c.set('h2', alice('key_2'), c.generation);
    c.set('bad', null, c.generation);
    c.dropKeyId('key_1');
    expect([c.get('h1'), c.get('h2'), c.get('bad')]).toEqual([undefined, alice('key_2'), undefined]);
  });

  it('forgets the key id of a replaced entry', () => {
    const c = cache();
    c.set('h1', alice('key_1'), c.generation);
    c.set('h1', alice('key_2'), c.generation);
    c.set('h9', alice('key_1'), c.generation);
    c.dropKeyId('key_2');
    expect(c.get('h1')).toBeUndefined();
    expect(c.get('h9')).toEqual(alice('key_1'));
  });

  it('drops by hash, by user and everything', () => {
    const c = cache();
    c.set('h1', alice('key_1'), c.generation);
    c.set('h2', alice('key_2', { userId: 'usr_b' }), c.generation);
    c.set('h3', alice('key_3'), c.generation);
    c.dropHash('h3');
    expect(c.get('h3')).toBeUndefined();
    c.dropUser('usr_a');
    expect([c.get('h1'), c.get('h2')]).toEqual([undefined, alice('key_2', { userId: 'usr_b' })]);
    const before = c.generation;
    c.clear();
    expect(c.size).toBe(0);
    expect(c.generation).toBeGreaterThan(before);
  });
});
