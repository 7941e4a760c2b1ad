import { API_KEY_LENGTH, apiKeyLookupHash, isWellFormedApiKey } from '@ocg/auth';
import type { UserRecord } from '@ocg/contracts';
import type { ApiKeyRepository } from '../api-keys/api-key.repository';
import type { ApiKeyCache, CachedKey } from './api-key-cache';
import type { Clock } from '../shared/clock';
import type { LastUsedTracker } from './last-used';
import type { KeyMemory } from './key-memory';
import { toUserRecord } from '../shared/records';

export interface ActiveKey {
  keyId: string;
  userId: string;
  scopes: string[];
  user: UserRecord;
  /** Unix ms; null when the key never expires. */
  expiresAt: number | null;
}

export type KeyFailure = 'malformed' | 'unknown' | 'disabled' | 'expired';
export type KeyCheck = { ok: true; key: ActiveKey } | { ok: false; reason: KeyFailure };

/**
 * The hot path of authentication: shape check, then this instance's memory of
 * active keys, then the Redis cache by the key's SHA-256, then Postgres.
 * Never decrypts a key.
 */
export class ApiKeyValidator {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly cache: ApiKeyCache,
    private readonly lastUsed: LastUsedTracker,
    private readonly clock: Clock,
    /** Without it, every validation asks Redis. */
    private readonly memory?: KeyMemory,
  ) {}

  /**
   * The answer for a key this instance remembers as active and unexpired,
   * given at once (no promise: most validations end here); undefined when
   * `check` has to decide.
   */
  fromMemory(text: string): KeyCheck | undefined {
    if (!this.memory || typeof text !== 'string' || text.length !== API_KEY_LENGTH) return undefined;
    return this.remembered(apiKeyLookupHash(text));
  }

  async check(text: string): Promise<KeyCheck> {
    if (typeof text !== 'string' || text.length !== API_KEY_LENGTH) return { ok: false, reason: 'malformed' };
    const hash = apiKeyLookupHash(text);
    const remembered = this.remembered(hash);
    if (remembered) return remembered;
    // Garbage never reaches Redis or Postgres: the checksum rejects it offline.
    if (!isWellFormedApiKey(text)) return { ok: false, reason: 'malformed' };
    const memoryGeneration = this.memory?.generation ?? 0;
    const { entry: cached, generation } = await this.cache.read(hash);
    const entry = cached ?? (await this.load(hash));
    if (!cached) void this.cache.fill(hash, generation, entry);
    if (!entry.found) return { ok: false, reason: 'unknown' };
    if (entry.status !== 'active') return { ok: false, reason: 'disabled' };
    const key: ActiveKey = { keyId: entry.keyId, userId: entry.userId, scopes: entry.scopes, user: entry.user, expiresAt: entry.expiresAt };
    if (this.expired(key)) return { ok: false, reason: 'expired' };
    this.memory?.remember(hash, key, memoryGeneration);
    return this.active(key);
  }

  /**
   * A remembered key was well formed when it was remembered (its SHA-256 names it): the offline check
   * (a checksum and a base58 decoding, most of a warm validation's work) is skipped for it.
   */
  private remembered(hash: string): KeyCheck | undefined {
    const key = this.memory?.get(hash);
    return key && !this.expired(key) ? this.active(key) : undefined;
  }

  private expired(key: ActiveKey): boolean {
    return key.expiresAt !== null && key.expiresAt <= this.clock();
  }

  private active(key: ActiveKey): KeyCheck {
    this.lastUsed.touch(key.keyId);
    return { ok: true, key };
  }

  private async load(hash: string): Promise<CachedKey> {
    const row = await this.keys.findWithUser(hash);
    if (!row) return { found: false };
    const user = toUserRecord(row.user);
    return { found: true, keyId: row.id, userId: row.userId, status: row.status, scopes: row.scopes, expiresAt: row.expiresAt?.getTime() ?? null, user };
  }
}
