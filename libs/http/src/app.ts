import { hash } from 'node:crypto';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { bodyParser, DEFAULT_BODY_LIMIT } from './body';
import { installNegotiation } from './negotiate';
import { assignRequestId } from './request-id';
import { endServerSpan, openCallContext, withCallContext } from './call-context';
import type { Tracing } from './tracing';
import { INTERNAL_TOKEN_HEADER, NODE_ADDRESS_HEADER } from './service-client';
import { requestCheck, type RequestCheckOptions } from './request-check';
import { routeOf, type Metrics } from './metrics';

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  /** Bytes, for the whole body and for any multipart field; default 1 MiB. */
  bodyLimit?: number;
  /** Trust X-Forwarded-* (set when behind the gateway or a load balancer). */
  trustProxy?: boolean;
  /** The description whose size limits every request is checked against before routing (see request-check.ts). */
  contract?: RequestCheckOptions;
  /** Records a server span per request when it records (OTEL_TRACES_EXPORTER); the trace id is carried either way. */
  tracing?: Tracing;
  /** Where each request's duration is observed (by method, route template and status); absent: not measured. */
  metrics?: Metrics;
}

const SECRET_QUERY = /^(?:.*(?:password|secret|token|signature|session|key).*|auth.*|code)$/i;

/** The URL for the log line, with values of secret-looking query parameters hidden. */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=')[0] ?? '';
      return SECRET_QUERY.test(safeDecode(name)) ? `${name}=[Redacted]` : pair;
    });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

declare module 'http' {
  interface IncomingMessage {
    /** The request id (request-id.ts). */
    id?: string;
    /** The service's logger with this request's `requestId`, made on first use. */
    log: Logger;
  }
}

/**
 * Calls between services (the internal credential) and signed node calls
 * (claims, heartbeats, syncs) are most of the traffic and say nothing an
 * operator reads line by line: their successes are logged at debug.
 */
function isInternalTraffic(req: express.Request): boolean {
  return req.headers[INTERNAL_TOKEN_HEADER] !== undefined || req.headers[NODE_ADDRESS_HEADER] !== undefined;
}

function accessLevel(req: express.Request, status: number): 'error' | 'warn' | 'info' | 'debug' {
  if (status >= 500) return 'error';
  if (status >= 400) return 'warn';
  return isInternalTraffic(req) ? 'debug' : 'info';
}

/** Where a request's child logger is kept once made (see `installRequestLog`). */
const REQUEST_LOG = Symbol('request log');

/**
 * `req.log`: the service's logger with the request id, made on first use. An
 * accessor on the app's request prototype, defined once: defining a property on
 * each request instead turned every request object into a slow dictionary
 * (about 20 µs a request, half the work of the whole pipeline).
 */
function installRequestLog(app: Express, logger: Logger): void {
  type WithLog = express.Request & { [REQUEST_LOG]?: Logger };
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    enumerable: false,
    get(this: WithLog): Logger {
      return (this[REQUEST_LOG] ??= logger.child({ requestId: this.id }));
    },
    set(this: WithLog, value: Logger) {
      this[REQUEST_LOG] = value;
    },
  });
}

/**
 * One line per request: who, what, outcome, time. No headers, no bodies.
 * Nothing is built for a line the level drops.
 */
function logRequest(logger: Logger, req: express.Request, res: express.Response, requestId: string, traceId: string, metrics?: Metrics): void {
  const started = Date.now();
  const t0 = metrics ? performance.now() : 0;
  // `on`, not `once`: close comes once, and `once` binds a wrapper for every request.
  res.on('close', () => {
    const status = res.statusCode;
    metrics?.requests.observe({ method: req.method, route: routeOf(req), status }, (performance.now() - t0) / 1000);
    const level = accessLevel(req, status);
    if (!logger.isLevelEnabled(level)) return;
    const message = status >= 500 ? 'request failed' : res.writableEnded ? 'request completed' : 'request aborted';
    logger[level]({ requestId, traceId, method: req.method, url: loggableUrl(req.originalUrl ?? req.url), status, ms: Date.now() - started }, message);
  });
}

/**
 * Where every request starts, in one express layer: its id, its log line
 * (written when it ends, on `close`), its call context (what service calls
 * made for it forward), its body in the three wire formats, and the request
 * check against the description. Routes run after it, inside the call context.
 */
function requestPipeline(opts: HttpAppOptions): express.RequestHandler {
  const parseBody = bodyParser(opts.bodyLimit ?? DEFAULT_BODY_LIMIT);
  const check = requestCheck(opts.contract);
  const checked = (req: express.Request, res: express.Response, next: express.NextFunction) => (err?: unknown) => {
    if (err !== undefined) return next(err);
    try {
      check(req, res, next);
    } catch (thrown) {
      next(thrown);
    }
  };
  return (req, res, next) => {
    const requestId = assignRequestId(req, res);
    const context = openCallContext(req.headers, requestId, opts.tracing, req.method);
    if (context.span) endServerSpan(req, res, context.span);
    logRequest(opts.logger, req, res, requestId, context.traceId, opts.metrics);
    withCallContext(context, () => parseBody(req, res, checked(req, res, next)));
  };
}

/** The ETag of an empty body, as the `etag` package writes it. */
const EMPTY_ETAG = 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';

/**
 * express's default weak ETag (`etag` with `weak: true`: the body's length in
 * hex and 27 characters of its SHA-1 in base64), the same value from a
 * one-shot hash: `createHash` builds a stream object for every answer.
 */
function weakEtag(body: Buffer | string, encoding?: BufferEncoding): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, encoding) : body;
  if (bytes.length === 0) return EMPTY_ETAG;
  return `W/"${bytes.length.toString(16)}-${hash('sha1', bytes, 'base64').substring(0, 27)}"`;
}

/**
 * The express app every service starts from: the request pipeline (ids, logging, call
 * context, the three wire formats in, the request check) and the wire formats out. Add
 * routes, then call `installErrorHandling`.
 */
export function createApp(opts: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', weakEtag);
  app.set('trust proxy', opts.trustProxy ?? false);
  // Plain key=value query strings: no nested objects from `a[b]=c` reaching validation.
  app.set('query parser', 'simple');
  installRequestLog(app, opts.logger);
  app.use(requestPipeline(opts));
  installNegotiation(app);
  return app;
}
