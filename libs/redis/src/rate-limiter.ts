import type { Redis } from 'ioredis';
import { TooManyRequestsError } from '@ocg/http';
import { redisKeys } from './keys';
import { hitRateLimit } from './rate-limit';

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
 * Per-client fixed-window limits in Redis, shared by every instance of every
 * service (`hitRateLimit`). Abuse protection, not accounting: when Redis is
 * down or slow the request goes ahead, since serving must not depend on
 * Redis. `client` is whatever the limit is per: an address, a user id.
 */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly scope: string,
    private readonly rule: RateLimitRule,
    private readonly logger: { debug(obj: object, msg: string): void },
  ) {}

  async check(client: string): Promise<LimitDecision> {
    if (this.rule.limit <= 0 || !client) return { allowed: true };
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), REDIS_BUDGET_MS)));
    try {
      const key = redisKeys.rateLimit(this.scope, client.replace(/\s/g, '_'));
      const result = await Promise.race([hitRateLimit(this.redis, key, this.rule.limit, this.rule.windowSeconds), budget]);
      if (!result || result.allowed) return { allowed: true };
      return { allowed: false, retryAfterSeconds: result.retryAfterSeconds };
    } catch (err) {
      this.logger.debug({ err: (err as Error).message, scope: this.scope }, 'rate limit skipped (Redis)');
      return { allowed: true };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Throws a 429 (`Retry-After`) over the limit; `what` completes "Too many ...", e.g. `job posts from user u_1`. */
  async enforce(client: string, what: string): Promise<void> {
    const decision = await this.check(client);
    if (decision.allowed) return;
    const per = this.rule.windowSeconds === 60 ? 'a minute' : `per ${this.rule.windowSeconds} s`;
    throw new TooManyRequestsError(`Too many ${what}: at most ${this.rule.limit} ${per}; retry in ${decision.retryAfterSeconds} s`, decision.retryAfterSeconds);
  }
}
