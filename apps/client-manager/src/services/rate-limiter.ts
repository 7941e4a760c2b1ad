import type { Redis } from 'ioredis';
import { TooManyRequestsError, type Logger } from '@ocg/http';
import { hitRateLimit, redisKeys } from '@ocg/redis';

/** Per-client fixed windows of one minute in Redis. Redis down: let requests through (abuse protection, not accounting). */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  async check(scope: string, client: string, perMinute: number): Promise<void> {
    let result;
    try {
      result = await hitRateLimit(this.redis, redisKeys.rateLimit(scope, client.replace(/\s/g, '_')), perMinute, 60);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, scope }, 'rate limiter unavailable; request let through');
      return;
    }
    if (!result.allowed) {
      throw new TooManyRequestsError(`Too many ${scope} requests from ${client}: at most ${perMinute} a minute; retry in ${result.retryAfterSeconds} s`, result.retryAfterSeconds);
    }
  }
}
