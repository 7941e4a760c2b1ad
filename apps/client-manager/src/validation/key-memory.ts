import type { Redis } from 'ioredis';
import { followKeyInvalidations, KeyCache, type CachedValidation, type KeyInvalidations } from '@ocg/auth';
import { API_KEY_INVALIDATED_CHANNEL } from '@ocg/contracts';
import type { Clock } from '../shared/clock';
import type { ActiveKey } from './api-key-validator';

/** Active keys remembered per instance; the oldest stored goes first past it. */
const MEMORY_ENTRIES = 10_000;

/** The validator's answer, under the names the cache reads. */
interface Remembered extends CachedValidation {
  key: ActiveKey;
}

/**
 * Active keys this instance validated lately, answered without a Redis round
 * trip, in front of the Redis cache. The same shape as every other service's
 * key cache (@ocg/auth's KeyCache and invalidation channel): an entry goes at
 * once when client-manager (any instance) publishes its invalidation, never
 * outlives the key's expiry or `ttlSeconds`, and nothing is remembered while
 * the subscription is down. Only active keys: a failed validation costs a
 * Redis round trip anyway (it is counted against the address there).
 */
export class KeyMemory {
  private readonly cache: KeyCache<Remembered>;
  /** Subscribed on first use: composing the services (a test, a one-off start) opens no connection. */
  private invalidations: KeyInvalidations | undefined;

  constructor(
    private readonly redis: Redis,
    ttlSeconds: number,
    clock: Clock,
  ) {
    this.cache = new KeyCache(ttlSeconds * 1000, 0, MEMORY_ENTRIES, clock);
  }

  get(hash: string): ActiveKey | undefined {
    this.invalidations ??= followKeyInvalidations(this.redis, API_KEY_INVALIDATED_CHANNEL, this.cache);
    return this.cache.get(hash)?.key;
  }

  /** Read before a lookup and passed to remember: an invalidation in between refuses the lookup's answer. */
  get generation(): number {
    return this.cache.generation;
  }

  remember(hash: string, key: ActiveKey, generation: number): void {
    if (!this.invalidations?.live) return;
    this.cache.set(hash, { apiKeyId: key.keyId, userId: key.userId, expiresAt: key.expiresAt ?? undefined, key }, generation);
  }

  /** This instance changed the key: gone here at once, before its own message comes back. */
  forget(keyId: string, hash: string): void {
    this.cache.dropKeyId(keyId);
    this.cache.dropHash(hash);
  }

  /** Resolves once invalidations arrive (until then nothing is remembered). */
  ready(): Promise<void> {
    this.invalidations ??= followKeyInvalidations(this.redis, API_KEY_INVALIDATED_CHANNEL, this.cache);
    return this.invalidations.ready;
  }

  async close(): Promise<void> {
    await this.invalidations?.close();
  }
}
