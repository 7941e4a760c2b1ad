import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import type { Logger } from '@ocg/http';
import { redisKeys } from '@ocg/redis';
import type { Clock } from './clock';

const LOCAL_MEMORY = 10_000;

/**
 * Keeps `lastUsedAt` current with at most one write per key per interval
 * across every instance (Redis SET NX EX), and no Redis call at all when this
 * instance already wrote within the interval. Off the request's path.
 */
export class LastUsedTracker {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly db: DataSource,
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly intervalSeconds = 60,
  ) {}

  touch(keyId: string): void {
    const now = this.clock();
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < this.intervalSeconds * 1000) return;
    if (this.written.size >= LOCAL_MEMORY) this.written.clear();
    this.written.set(keyId, now);
    void this.write(keyId, now);
  }

  private async write(keyId: string, now: number): Promise<void> {
    try {
      const first = await this.redis.set(redisKeys.apiKeyLastUsed(keyId), '1', 'EX', this.intervalSeconds, 'NX');
      if (first !== 'OK') return;
      await this.db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [keyId, new Date(now)]);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, keyId }, 'lastUsedAt not recorded');
    }
  }
}
