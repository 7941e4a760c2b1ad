import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
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

/** Redis answering slower than this does not hold a request up: this instance's own count decides instead. */
const REDIS_BUDGET_MS = 250;
/** Clients an instance counts on its own at most; past that the least recent start again from zero. */
const LOCAL_CLIENTS = 10_000;

/**
 * Per-client fixed-window limits in Redis, shared by every instance of every
 * service (`hitRateLimit`). Abuse protection, not accounting: serving must not
 * depend on Redis, so when Redis is down or slow the instance's own count of
 * the same window decides (the limit then holds per instance instead of
 * across them, never not at all: slowing Redis down does not open the gate).
 * `client` is whatever the limit is per: an address, a user id.
 */
export class RateLimiter {
  private readonly local = new LRUCache<string, { count: number; resetAt: number }>({ max: LOCAL_CLIENTS });

  constructor(
    private readonly redis: Redis,
    private readonly scope: string,
    private readonly rule: RateLimitRule,
    private readonly logger: { debug(obj: object, msg: string): void },
  ) {}

  async check(client: string): Promise<LimitDecision> {
    if (this.rule.limit <= 0 || !client) return { allowed: true };
    const local = this.countLocally(client);
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), REDIS_BUDGET_MS)));
    try {
      const key = redisKeys.rateLimit(this.scope, client.replace(/\s/g, '_'));
      const result = await Promise.race([hitRateLimit(this.redis, key, this.rule.limit, this.rule.windowSeconds), budget]);
      if (!result) {
        this.logger.debug({ scope: this.scope, budgetMs: REDIS_BUDGET_MS }, 'rate limit counted locally (Redis slow)');
        return local;
      }
      if (result.allowed) return { allowed: true };
      return { allowed: false, retryAfterSeconds: result.retryAfterSeconds };
    } catch (err) {
      this.logger.debug({ err: (err as Error).message, scope: this.scope }, 'rate limit counted locally (Redis)');
      return local;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Counts every check in this instance's own window for the client: the decision when Redis cannot give one. */
  private countLocally(client: string): LimitDecision {
    const now = Date.now();
    let entry = this.local.get(client);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + this.rule.windowSeconds * 1000 };
      this.local.set(client, entry);
    }
    entry.count++;
    if (entry.count <= this.rule.limit) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((entry.resetAt - now) / 1000)) };
  }

  /** Throws a 429 (`Retry-After`) over the limit; `what` completes "Too many ...", e.g. `job posts from user u_1`. */
  async enforce(client: string, what: string): Promise<void> {
    const decision = await this.check(client);
    if (decision.allowed) return;
    const per = this.rule.windowSeconds === 60 ? 'a minute' : `per ${this.rule.windowSeconds} s`;
    throw new TooManyRequestsError(`Too many ${what}: at most ${this.rule.limit} ${per}; retry in ${decision.retryAfterSeconds} s`, decision.retryAfterSeconds);
  }
}
