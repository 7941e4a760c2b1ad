import type { ValidatedKey } from './identity';

/** What the cache reads of an answer: whose key it is (for invalidations) and when the key expires. */
export interface CachedValidation {
  apiKeyId: string;
  userId: string;
  /** Unix ms; absent when the key never expires. */
  expiresAt?: number;
}

interface Entry<T> {
  result: T | null;
  expiresAt: number;
}

/**
 * Validation results by the key's lookup hash, with a TTL and a size bound.
 * Invalidation comes by key id or user id (what client-manager knows when a
 * key is disabled or deleted), so both are indexed back to hashes.
 */
export class KeyCache<T extends CachedValidation = ValidatedKey> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly hashesByKeyId = new Map<string, string>();
  /** Bumped by every invalidation, so a lookup that started before one never caches its stale answer. */
  generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly negativeTtlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  /** The cached answer, or undefined on a miss (null is a cached "not valid"). */
  get(hash: string): T | null | undefined {
    const entry = this.entries.get(hash);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.delete(hash);
      return undefined;
    }
    return entry.result;
  }

  set(hash: string, result: T | null, generation: number): void {
    if (generation !== this.generation) return;
    this.delete(hash);
    if (this.entries.size >= this.maxEntries) this.delete(this.entries.keys().next().value as string);
    const ttl = result === null ? this.negativeTtlMs : this.ttlMs;
    // An answer never outlives the key's own expiry: past it, the next request asks again (and is refused).
    const expiresAt = Math.min(this.now() + ttl, result?.expiresAt ?? Infinity);
    if (expiresAt <= this.now()) return;
    this.entries.set(hash, { result, expiresAt });
    if (result) this.hashesByKeyId.set(result.apiKeyId, hash);
  }

  /** Also drops every cached "not valid": those are not indexed by key id, and a re-enabled key must work at once. */
  dropKeyId(keyId: string): void {
    this.generation++;
    const hash = this.hashesByKeyId.get(keyId);
    // Stryker disable next-line ConditionalExpression: delete(undefined) finds no entry and does nothing
    if (hash !== undefined) this.delete(hash);
    for (const [other, entry] of this.entries) if (entry.result === null) this.entries.delete(other);
  }

  dropHash(hash: string): void {
    this.generation++;
    this.delete(hash);
  }

  dropUser(userId: string): void {
    this.generation++;
    for (const [hash, entry] of this.entries) if (entry.result?.userId === userId) this.delete(hash);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.hashesByKeyId.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(hash: string): void {
    const entry = this.entries.get(hash);
    if (entry?.result) this.hashesByKeyId.delete(entry.result.apiKeyId);
    this.entries.delete(hash);
  }
}
