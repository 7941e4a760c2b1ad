// ioredis factory, key names, rate limiting, cache and pub/sub helpers. Redis holds only what can be rebuilt.
export { createRedis, pingRedis } from './client';
export type { CreateRedisOptions } from './client';
export { redisKeys } from './keys';
export { hitRateLimit } from './rate-limit';
export type { RateLimitResult } from './rate-limit';
export { RateLimiter, type RateLimitRule, type LimitDecision } from './rate-limiter';
export { getJson, setJson, publishJson, subscribeJson } from './cache';
export type { Redis } from 'ioredis';
