/**
 * Errors that mean "a backing store cannot be reached right now" (Postgres
 * or Redis down, restarting, or dropping connections), whatever library threw
 * them: the client should retry shortly (503 with Retry-After), not read a
 * 500 as a bug in its request or in the service.
 */

/** Socket-level failures (node-pg, ioredis and TypeORM pass the system error code through). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** Postgres SQLSTATEs: admin/crash shutdown, cannot connect now, too many connections. Class 08 is every connection exception. */
const PG_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Messages node-pg and ioredis give without a code. */
const MESSAGES = [
  /^Connection terminated/, // node-pg: the server went away mid-query or while connecting
  /^timeout exceeded when trying to connect/, // node-pg pool
  /^Client has encountered a connection error/, // node-pg
  /^Stream isn't writeable and enableOfflineQueue options is false/, // ioredis, disconnected
  /^Command timed out/, // ioredis commandTimeout
  /^Connection is closed\.?$/, // ioredis
  /^Reached the max retries per request limit/, // ioredis MaxRetriesPerRequestError
];

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** True when the error (or what it wraps: TypeORM's driverError, a cause, an AggregateError's errors) is a store being unreachable. */
export function isStoreUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const e = err as ErrorLike;
  if (typeof e.code === 'string' && (SOCKET_CODES.has(e.code) || PG_CODES.has(e.code) || /^08/.test(e.code))) return true;
  if (typeof e.message === 'string' && MESSAGES.some((m) => m.test(e.message as string))) return true;
  const inner = [e.driverError, e.cause, ...(Array.isArray(e.errors) ? e.errors : [])];
  return inner.some((i) => isStoreUnavailable(i, depth + 1));
}

/** Seconds a client is told to wait before retrying while a store is away. */
export const STORE_RETRY_AFTER_SECONDS = 5;
