import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { hitRateLimit, redisKeys } from '@ocg/redis';

export interface RateLimitRule {
  /** Requests allowed per window and client; 0 turns the limit off. */
  limit: number;
  windowSeconds: number;
}

/** Allowed, or how many seconds to wait. */
export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Redis answering slower than this does not hold a request up: the limit is skipped (fails open). */
const REDIS_BUDGET_MS = 250;

/**
 * Per-client fixed-window limits in Redis (shared by every gateway
 * instance, `hitRateLimit` as in the services). Abuse protection only:
 * when Redis is down or slow the request goes ahead, since serving jobs
 * must not depend on Redis.
 */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly scope: string,
    private readonly rule: RateLimitRule,
    private readonly logger: Logger,
  ) {}

  async check(client: string): Promise<LimitDecision> {
    if (this.rule.limit <= 0 || !client) return { allowed: true };
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), REDIS_BUDGET_MS)));
    try {
      const result = await Promise.race([hitRateLimit(this.redis, redisKeys.rateLimit(this.scope, client), this.rule.limit, this.rule.windowSeconds), budget]);
      if (!result || result.allowed) return { allowed: true };
      return { allowed: false, retryAfterSeconds: result.retryAfterSeconds };
    } catch (err) {
      this.logger.debug({ err: (err as Error).message, scope: this.scope }, 'rate limit skipped (Redis)');
      return { allowed: true };
    } finally {
      clearTimeout(timer);
    }
  }
}
