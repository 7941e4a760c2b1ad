import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '@ocg/http';
import { redisKeys } from '@ocg/redis';
import type { ApiKeyRepository } from '../api-keys/api-key.repository';
import type { Clock } from '../shared/clock';

const LOCAL_MEMORY = 10_000;

/**
 * Keeps `lastUsedAt` current with at most one write per key per interval
 * across every instance (Redis SET NX EX), and no Redis call at all when this
 * instance already wrote within the interval. Off the request's path.
 */
export class LastUsedTracker {
  /** Keys this instance wrote within the interval (they expire with it; least recently used out first). */
  private readonly written: LRUCache<string, true>;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly intervalSeconds = 60,
  ) {
    this.written = new LRUCache({ max: LOCAL_MEMORY, ttl: intervalSeconds * 1000, ttlResolution: 0, perf: { now: clock } });
  }

  touch(keyId: string): void {
    const now = this.clock();
    if (this.written.get(keyId)) return;
    this.written.set(keyId, true);
    void this.write(keyId, now);
  }

  private async write(keyId: string, now: number): Promise<void> {
    try {
      const first = await this.redis.set(redisKeys.apiKeyLastUsed(keyId), '1', 'EX', this.intervalSeconds, 'NX');
      if (first !== 'OK') return;
      await this.keys.touchLastUsed(keyId, new Date(now));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, keyId }, 'lastUsedAt not recorded');
    }
  }
}
