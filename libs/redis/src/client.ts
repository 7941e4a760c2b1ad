import { Redis } from 'ioredis';

export interface CreateRedisOptions {
  /** CLIENT SETNAME, visible in CLIENT LIST: the service name. */
  name?: string;
  lazyConnect?: boolean;
  /** Connection errors (logged by the caller); default: a throttled line on stderr. */
  onError?: (err: Error) => void;
  /** Fail a command that gets no answer in time (a hung server); default: no limit. */
  commandTimeoutMs?: number;
}

const MAX_BACKOFF_MS = 2000;

/**
 * An ioredis client tuned for "Redis down means degraded, never stuck":
 * commands issued while disconnected wait for at most two reconnect attempts
 * and then fail, so callers can fall back and readiness can report it; the
 * client keeps reconnecting in the background (backoff capped at 2 s).
 */
export function createRedis(url: string, opts: CreateRedisOptions = {}): Redis {
  const redis = new Redis(url, {
    connectionName: opts.name,
    lazyConnect: opts.lazyConnect ?? false,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(100 * 2 ** (attempt - 1), MAX_BACKOFF_MS),
    connectTimeout: 5000,
    commandTimeout: opts.commandTimeoutMs,
  });
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
