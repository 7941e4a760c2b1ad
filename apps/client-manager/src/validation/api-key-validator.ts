import { apiKeyLookupHash, isWellFormedApiKey } from '@ocg/auth';
import type { UserRecord } from '@ocg/contracts';
import type { ApiKeyRepository } from '../api-keys/api-key.repository';
import type { ApiKeyCache, CachedKey } from './api-key-cache';
import type { Clock } from '../shared/clock';
import type { LastUsedTracker } from './last-used';
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
 * The hot path of authentication: shape check, then the Redis cache by the
 * key's SHA-256, then Postgres. Never decrypts a key.
 */
export class ApiKeyValidator {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly cache: ApiKeyCache,
    private readonly lastUsed: LastUsedTracker,
    private readonly clock: Clock,
  ) {}

  async check(text: string): Promise<KeyCheck> {
    // Garbage never reaches Redis or Postgres: the checksum rejects it offline.
    if (!isWellFormedApiKey(text)) return { ok: false, reason: 'malformed' };
    const hash = apiKeyLookupHash(text);
    const { entry: cached, generation } = await this.cache.read(hash);
    const entry = cached ?? (await this.load(hash));
    if (!cached) void this.cache.fill(hash, generation, entry);
    if (!entry.found) return { ok: false, reason: 'unknown' };
    if (entry.status !== 'active') return { ok: false, reason: 'disabled' };
    if (entry.expiresAt !== null && entry.expiresAt <= this.clock()) return { ok: false, reason: 'expired' };
    this.lastUsed.touch(entry.keyId);
    return { ok: true, key: { keyId: entry.keyId, userId: entry.userId, scopes: entry.scopes, user: entry.user, expiresAt: entry.expiresAt } };
  }

  private async load(hash: string): Promise<CachedKey> {
    const row = await this.keys.findWithUser(hash);
    if (!row) return { found: false };
    const user = toUserRecord(row.user);
    return { found: true, keyId: row.id, userId: row.userId, status: row.status, scopes: row.scopes, expiresAt: row.expiresAt?.getTime() ?? null, user };
  }
}
