import { types } from 'node:util';
import { pino, type Logger } from 'pino';
import { scrubSecrets } from './scrub';
import { logContext } from './call-context';

export type { Logger } from 'pino';

export interface LoggerOptions {
  service: string;
  /** pino level name; default `info`. */
  level?: string;
  /**
   * Where JSON lines go; default stdout, written asynchronously (sonic-boom:
   * lines queue while a write is in flight and go out together; what is
   * queued is flushed synchronously when the process exits). Tests pass a
   * stream to read the lines back.
   */
  destination?: NodeJS.WritableStream;
}

const CENSOR = '[Redacted]';

/** Field names (lowercased, `-` and `_` dropped) whose values never reach a log line. */
const SECRET_NAMES = new Set(['password', 'passwd', 'key', 'apikey', 'xapikey', 'secret', 'token', 'authorization', 'proxyauthorization', 'cookie', 'setcookie']);
/** Suffixes that make a name secret too: `accessToken`, `clientSecret`, `privateKey`, ... */
const SECRET_SUFFIXES = ['password', 'secret', 'token', 'apikey', 'privatekey', 'secretkey', 'masterkey'];

export function isSecretName(name: string): boolean {
  const n = name.toLowerCase().replace(/[-_]/g, '');
  return SECRET_NAMES.has(n) || SECRET_SUFFIXES.some((s) => n.endsWith(s));
}

/**
 * pino's `redact` only knows fixed paths; secrets can sit at any depth of whatever a
 * developer logs, so plain objects, arrays and errors are walked (copied, never mutated).
 * Class instances such as requests are left to their serializers and the `redact` paths.
 */
export function redactDeep(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 10 || seen.has(value)) return '[Truncated]';
  seen.add(value);
  if (isError(value)) return redactDeep(plainError(value), depth, seen);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1, seen));
  // Any realm's Object.prototype counts: node core objects (req.headers) come from the main realm.
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== null && Object.getPrototypeOf(proto) !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretName(k) ? CENSOR : redactDeep(v, depth + 1, seen);
  }
  return out;
}

/** Cross-realm too: errors made by node core are not `instanceof` a vm context's Error. */
export function isError(value: unknown): value is Error {
  return value instanceof Error || types.isNativeError(value);
}

/**
 * Fields of database errors that quote values: the statement's parameters
 * (TypeORM's QueryFailedError), Postgres' `detail` ("Failing row contains
 * (...)", "Key (email)=(...) already exists") and the context of `where`.
 */
const QUOTING_FIELDS = ['parameters', 'detail', 'where', 'internalQuery'];

/** The string parameters of a failed query, longest first (a short one may be part of a longer one). */
function parametersOf(e: Error): string[] {
  const params = (e as { parameters?: unknown }).parameters;
  if (!Array.isArray(params)) return [];
  return params
    .map((p) => (typeof p === 'string' ? p : Buffer.isBuffer(p) ? '' : typeof p === 'object' && p !== null ? JSON.stringify(p) : ''))
    .filter((p) => p.length >= 3)
    .sort((a, b) => b.length - a.length);
}

/** Postgres quotes a rejected value in the message (`invalid input syntax for type integer: "..."`): cut every parameter out. */
function withoutParameters(text: string | undefined, params: string[]): string | undefined {
  if (text === undefined || params.length === 0) return text;
  return params.reduce((t, p) => t.split(p).join('[parameter]'), text);
}

/** An error as a plain object, so its own fields (and its cause) get walked too; what a query error quotes is cut. */
function plainError(e: Error, inherited: string[] = []): Record<string, unknown> {
  const params = [...parametersOf(e), ...inherited];
  const out: Record<string, unknown> = { ...e, type: e.constructor?.name ?? e.name, message: withoutParameters(e.message, params), stack: withoutParameters(e.stack, params) };
  for (const field of QUOTING_FIELDS) if (field in out) out[field] = CENSOR;
  const driverError = (e as { driverError?: unknown }).driverError;
  if (isError(driverError)) out['driverError'] = plainError(driverError, params);
  if (e.cause !== undefined) out['cause'] = isError(e.cause) ? plainError(e.cause, params) : e.cause;
  if (e instanceof AggregateError) out['errors'] = e.errors;
  return out;
}

/** pino applies this after `formatters.log`, which has already made errors plain. */
export function serializeError(e: unknown): unknown {
  return isError(e) ? redactDeep(e) : e;
}

/** Header positions the request/response serializers produce after `redactDeep` ran. */
const HEADER_PATHS = ['authorization', 'cookie', '"x-api-key"', '"set-cookie"', '"proxy-authorization"'].flatMap((h) => [
  `req.headers[${h.startsWith('"') ? h : `"${h}"`}]`,
  `res.headers[${h.startsWith('"') ? h : `"${h}"`}]`,
]);

export function createLogger(opts: LoggerOptions): Logger {
  return pino(
    {
      level: opts.level ?? 'info',
      base: { service: opts.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      // The trace id of the request the line is written for, whichever logger writes it.
      mixin: logContext,
      formatters: {
        level: (label) => ({ level: label }),
        log: (obj) => redactDeep(obj) as Record<string, unknown>,
      },
      serializers: { err: serializeError },
      redact: { paths: HEADER_PATHS, censor: CENSOR },
    },
    (opts.destination as pino.DestinationStream | undefined) ?? pino.destination({ dest: 1, sync: false }),
  );
}
