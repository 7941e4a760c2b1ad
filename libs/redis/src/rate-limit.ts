import type { Redis } from 'ioredis';

export interface RateLimitResult {
  allowed: boolean;
  remaining: number;
  /** 0 when allowed; otherwise seconds until the window resets (for Retry-After). */
  retryAfterSeconds: number;
  /** Seconds until the window resets (for RateLimit-Reset). */
  resetSeconds: number;
}

// INCR and the expiry in one script: a crash between them cannot leave a
// counter that never expires. A key without expiry (PTTL -1) gets one.
const FIXED_WINDOW = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

/**
 * Counts one hit in a fixed window of windowSeconds and says whether it is
 * within limit. Fixed windows allow up to 2x limit across a window boundary;
 * that is accepted for abuse protection. Throws when Redis is down: callers
 * decide whether to fail open (Redis holds nothing that cannot be lost).
 */
export async function hitRateLimit(redis: Redis, key: string, limit: number, windowSeconds: number): Promise<RateLimitResult> {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`rate limit must be a positive integer, got ${limit}`);
  if (!(windowSeconds > 0)) throw new Error(`rate-limit window must be positive, got ${windowSeconds}`);
  const windowMs = Math.ceil(windowSeconds * 1000);
  const [count, ttlMs] = (await redis.eval(FIXED_WINDOW, 1, key, windowMs)) as [number, number];
  const allowed = count <= limit;
  const resetSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return { allowed, remaining: Math.max(0, limit - count), retryAfterSeconds: allowed ? 0 : resetSeconds, resetSeconds };
}
