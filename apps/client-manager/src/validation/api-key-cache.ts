import type { Redis } from 'ioredis';
import type { Logger } from '@ocg/http';
import { publishJson, redisKeys } from '@ocg/redis';
import { API_KEY_INVALIDATED_CHANNEL, type ApiKeyInvalidatedEvent, type ApiKeyStatus, type UserRecord } from '@ocg/contracts';
import type { KeyMemory } from './key-memory';

/** What validation needs of a key, cached by its lookup hash. Unknown keys are cached too (`found: false`). */
export type CachedKey = { found: false } | { found: true; keyId: string; userId: string; status: ApiKeyStatus; scopes: string[]; expiresAt: number | null; user: UserRecord };

// Fill only if no invalidation happened since the reader took its generation:
// otherwise a read that raced a disable could cache the key as still active.
const FILL = `
if (redis.call('GET', KEYS[2]) or '') == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 1
end
return 0`;

// Bump the generation first, then drop the entry: any fill in flight is refused.
const INVALIDATE = `
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])`;

/** The warm path of key validation. Redis trouble degrades to Postgres, never to a wrong answer. */
export class ApiKeyCache {
  constructor(
    private readonly redis: Redis,
    private readonly ttlSeconds: number,
    private readonly logger: Logger,
    /** This instance's memory in front of Redis, forgotten here at once on an invalidation. */
    private readonly memory?: Pick<KeyMemory, 'forget'>,
  ) {}

  /** The entry and the generation to fill with on a miss. */
  async read(hash: string): Promise<{ entry?: CachedKey; generation: string | null }> {
    try {
      const [text, generation] = await this.redis.mget(redisKeys.apiKeyCache(hash), generationKey(hash));
      return { entry: parse(text), generation: generation ?? '' };
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'API key cache unavailable; validating against Postgres');
      return { generation: null };
    }
  }

  async fill(hash: string, generation: string | null, entry: CachedKey): Promise<void> {
    if (generation === null) return; // Redis was down when we read: do not write what we cannot order
    await this.redis.eval(FILL, 2, redisKeys.apiKeyCache(hash), generationKey(hash), generation, JSON.stringify(entry), this.ttlSeconds).catch(() => undefined);
  }

  /**
   * Drops the entry at once and tells other services and instances; retried because a stale entry would
   * outlive a disable. The memory forgets after Redis did: a lookup that read Redis before may not keep its answer.
   */
  async invalidate(keyId: string, hash: string): Promise<void> {
    try {
      await this.invalidateShared(keyId, hash);
    } finally {
      this.memory?.forget(keyId, hash);
    }
  }

  private async invalidateShared(keyId: string, hash: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.redis.eval(INVALIDATE, 2, redisKeys.apiKeyCache(hash), generationKey(hash), this.ttlSeconds + 300);
        await publishJson(this.redis, API_KEY_INVALIDATED_CHANNEL, { keyId, hash } satisfies ApiKeyInvalidatedEvent);
        return;
      } catch (err) {
        if (attempt >= 3) {
          this.logger.error({ err: (err as Error).message, keyId }, `API key cache entry not invalidated; it expires within ${this.ttlSeconds} s`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }
}

const generationKey = (hash: string): string => `${redisKeys.apiKeyCache(hash)}:gen`;

function parse(text: string | null): CachedKey | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as CachedKey;
    // Stryker disable next-line BlockStatement: an empty catch block answers undefined too
  } catch {
    return undefined; // unreadable: a miss
  }
}
