import { Redis, type RedisOptions } from 'ioredis';

export interface CreateRedisOptions {
  /** CLIENT SETNAME, visible in CLIENT LIST: the service name. */
  name?: string;
  lazyConnect?: boolean;
  /** Connection errors (logged by the caller); default: a throttled line on stderr. */
  onError?: (err: Error) => void;
  /** Fail a command that gets no answer in time (a hung or unreachable server). Default 1000 ms. */
  commandTimeoutMs?: number;
  /** Give up a connection attempt after this long (a server that does not accept). Default 2000 ms. */
  connectTimeoutMs?: number;
  /**
   * Commands issued in one turn of the event loop go out in one write, their
   * answers come back in one read (ioredis `enableAutoPipelining`): under
   * concurrent requests, far fewer socket writes for the process and for
   * Redis. Each command still gets its own answer, error and timeout. Off for
   * duplicates (subscribers).
   */
  autoPipelining?: boolean;
}

const MAX_BACKOFF_MS = 2000;
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 1000;

/**
 * An ioredis client tuned for "Redis down means degraded, never stuck":
 * - before the first connection, commands queue (a service may issue its first
 *   commands while connecting), each bounded by the command timeout;
 * - once it has been connected, a command issued while disconnected fails at
 *   once (no offline queue), so callers fall back instead of waiting for a
 *   reconnect (measured before: 3-8 s per request while Redis was down);
 * - every command fails after `commandTimeoutMs` without an answer (a hung server);
 * - the client keeps reconnecting in the background (backoff capped at 2 s).
 * Duplicates (pub/sub subscribers) keep the offline queue and no command
 * timeout: they serve no request, and their (re)subscriptions must go through.
 */
export function createRedis(url: string, opts: CreateRedisOptions = {}): Redis {
  const options: RedisOptions = {
    connectionName: opts.name,
    lazyConnect: opts.lazyConnect ?? false,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(100 * 2 ** (attempt - 1), MAX_BACKOFF_MS),
    connectTimeout: opts.connectTimeoutMs ?? 2000,
    commandTimeout: opts.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    enableAutoPipelining: opts.autoPipelining ?? false,
  };
  const redis = new Redis(url, options);
  // ioredis reads this option at every command: from the first connection on, no queueing while disconnected.
  redis.once('ready', () => {
    redis.options.enableOfflineQueue = false;
  });
  const duplicate = redis.duplicate.bind(redis);
  redis.duplicate = (override) => duplicate({ enableOfflineQueue: true, commandTimeout: undefined, enableAutoPipelining: false, ...override });
  // Without a listener ioredis reports errors itself; with it, they never throw.
  redis.on('error', opts.onError ?? throttledStderr(opts.name ?? 'redis'));
  return redis;
}

/** Reconnect loops repeat the same error; one line per message per 10 s is enough. */
function throttledStderr(name: string): (err: Error) => void {
  const lastSeen = new Map<string, number>();
  return (err) => {
    const now = Date.now();
    if (now - (lastSeen.get(err.message) ?? 0) < 10_000) return;
    lastSeen.set(err.message, now);
    process.stderr.write(`${name}: redis error: ${err.message}\n`);
  };
}
/** Throws a clear error unless Redis answers PING within timeoutMs (readiness checks). */
export async function pingRedis(redis: Redis, timeoutMs = 1000): Promise<void> {
  const where = `redis://${redis.options.host}:${redis.options.port}/${redis.options.db ?? 0}`;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([redis.ping(), timeout]);
  } catch (err) {
    throw new Error(`Redis ping failed (${where}): ${(err as Error).message}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
