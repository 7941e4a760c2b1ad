/**
 * CORS on the API host, so frontends on the operator's own origins can call
 * the API from a browser with an API key or the session cookie. Only exact,
 * configured origins get CORS headers (credentials included); any other
 * origin gets none, so the browser withholds the answer. Job and node hosts
 * never come here: a job's endpoints answer CORS themselves.
 */
import type http from 'node:http';
import { sendError } from './respond';

const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE';
/** What the client sends beyond the CORS-safelisted headers. */
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, Idempotency-Key, X-Request-Id, Traceparent, Tracestate';
/** What the client reads beyond the safelisted response headers. */
const EXPOSE_HEADERS = 'X-Request-Id, Retry-After, Location, Content-Disposition, ETag, Traceparent';
/** Browsers cap this anyway (Chromium at 2 h); 10 min keeps a changed list effective soon. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * Parses `CORS_ORIGINS`: a comma-separated list of exact origins
 * (`https://app.example.com`, `http://127.0.0.1:5173`), normalized the way
 * browsers send them. Wildcards, `null` and anything with a path are refused.
 */
export function parseCorsOrigins(text: string): string[] {
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return entries.map((entry) => {
    let url: URL;
    try {
      if (entry.includes('*')) throw new Error('wildcard');
      url = new URL(entry);
    } catch {
      throw new Error(`"${entry}" is not an origin (scheme://host[:port]); wildcards are not accepted`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`"${entry}": only http and https origins`);
    if (url.username || url.password || url.search || url.hash || url.pathname !== '/') {
      throw new Error(`"${entry}" is not an origin: no path, query or credentials (scheme://host[:port] only)`);
    }
    return url.origin;
  });
}

export interface Cors {
  /** Sets the CORS headers for this request; true when it answered it (a preflight). */
  apply(req: http.IncomingMessage, res: http.ServerResponse, requestId: string): boolean;
}

/** The CORS policy of the API host; undefined (no CORS headers at all) without origins. */
export function createCors(origins: readonly string[]): Cors | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  return {
    apply(req, res, requestId) {
      // The answer depends on Origin even when it carries no CORS headers: caches must key on it.
      keepGatewayCorsHeaders(res);
      res.setHeader('vary', 'Origin');
      const origin = req.headers.origin;
      const listed = origin !== undefined && allowed.has(origin);
      const preflight = req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined;
      if (listed) {
        res.setHeader('access-control-allow-origin', origin);
        res.setHeader('access-control-allow-credentials', 'true');
      }
      if (!preflight) {
        if (listed) res.setHeader('access-control-expose-headers', EXPOSE_HEADERS);
        return false;
      }
      if (listed) answerPreflight(res, requestId);
      else sendError(res, 403, 'ForbiddenError', 'CORS_ORIGIN_NOT_ALLOWED', `origin ${origin} is not in the gateway's CORS_ORIGINS`, requestId);
      return true;
    },
  };
}

/** 204 with what the listed origin may send, cached by the browser for the max-age. */
function answerPreflight(res: http.ServerResponse, requestId: string): void {
  // setHeader, not writeHead's argument: writeHead drops CORS headers (keepGatewayCorsHeaders).
  res.setHeader('vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
  res.setHeader('access-control-allow-methods', ALLOW_METHODS);
  res.setHeader('access-control-allow-headers', ALLOW_HEADERS);
  res.setHeader('access-control-max-age', String(CORS_MAX_AGE_SECONDS));
  res.setHeader('x-request-id', requestId);
  res.writeHead(204).end();
}

/**
 * A proxied answer's headers are written in one writeHead call, which would
 * replace the gateway's Vary and could carry a service's own CORS headers.
 * Here the service's Vary is merged with Origin and its CORS headers are
 * dropped: which origins may read the API is the gateway's decision alone.
 */
function keepGatewayCorsHeaders(res: http.ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
    const headers = (args.find((a, i) => i > 0 && a !== null && typeof a === 'object' && !Array.isArray(a)) ?? {}) as http.OutgoingHttpHeaders;
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (lower.startsWith('access-control-')) delete headers[name];
      else if (lower === 'vary') headers[name] = mergeVary(String(this.getHeader('vary') ?? ''), String(value));
    }
    return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
  } as typeof res.writeHead;
}

/** Vary lists merged, each name once (the first spelling kept), ours first. */
export function mergeVary(ours: string, theirs: string): string {
  const names = [...ours.split(','), ...theirs.split(',')].map((s) => s.trim()).filter(Boolean);
  const seen = new Set<string>();
  return names.filter((n) => !seen.has(n.toLowerCase()) && seen.add(n.toLowerCase())).join(', ');
}
