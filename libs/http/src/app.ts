import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { bodyParser, DEFAULT_BODY_LIMIT } from './body';
import { negotiation } from './negotiate';
import { requestIdMiddleware, requestIdOf } from './request-id';
import { callContextMiddleware } from './call-context';
import { requestCheck, type RequestCheckOptions } from './request-check';

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  /** Bytes, for the whole body and for any multipart field; default 1 MiB. */
  bodyLimit?: number;
  /** Trust X-Forwarded-* (set when behind the gateway or a load balancer). */
  trustProxy?: boolean;
  /** The description whose size limits every request is checked against before routing (see request-check.ts). */
  contract?: RequestCheckOptions;
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

/** One line per request: who, what, outcome, time. No headers, no bodies. */
function requestLogging(logger: Logger): express.RequestHandler {
  const line = (req: express.Request, res: express.Response, ms: number): object => ({
    method: req.method,
    url: loggableUrl(req.originalUrl ?? req.url),
    status: res.statusCode,
    ms,
  });
  return pinoHttp({
    logger,
    genReqId: (req) => requestIdOf(req as express.Request) ?? '',
    quietReqLogger: true,
    quietResLogger: true,
    // Our logger's serializers (error redaction) stay in force in req.log.
    wrapSerializers: false,
    customAttributeKeys: { reqId: 'requestId', responseTime: 'ms' },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    customSuccessObject: (req, res, val: { ms: number }) => line(req as express.Request, res as express.Response, val.ms),
    customErrorObject: (req, res, _err, val: { ms: number }) => line(req as express.Request, res as express.Response, val.ms),
    customSuccessMessage: (_req, res) => (res.writableEnded ? 'request completed' : 'request aborted'),
    customErrorMessage: () => 'request failed',
  });
}

/**
 * The express app every service starts from: request ids, request logging, the three
 * wire formats in and out. Add routes, then call `installErrorHandling`.
 */
export function createApp(opts: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', opts.trustProxy ?? false);
  // Plain key=value query strings: no nested objects from `a[b]=c` reaching validation.
  app.set('query parser', 'simple');
  app.use(requestIdMiddleware());
  app.use(callContextMiddleware());
  app.use(requestLogging(opts.logger));
  app.use(bodyParser(opts.bodyLimit ?? DEFAULT_BODY_LIMIT));
  app.use(negotiation());
  app.use(requestCheck(opts.contract));
  return app;
}
