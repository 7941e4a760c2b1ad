import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import { routeTableFrom } from '@ocg/api-spec';
import { BlockList } from 'node:net';
import {
  guardUpgradeSocket,
  isSaneRequestId,
  openCallContext,
  refuseUpgrade,
  TRACEPARENT_HEADER,
  UNMATCHED_ROUTE,
  withCallContext,
  type Metrics,
  type RelaySet,
  type Tracing,
} from '@ocg/http';
import { pingRedis } from '@ocg/redis';
import { createUpstreams, proxyRequest } from './proxy';
import { sendError, sendJson } from './respond';
import { serveDocs } from './docs';
import type { Ingress } from './ingress';
import type { Pages } from './pages';
import { forwardedOf } from './forwarded';
import type { RateLimiter } from '@ocg/redis';
import { servePageLimited } from './page-limit';
import { createCors } from './cors';
import { relayApi } from './api-relay';

export interface GatewayOptions {
  logger: Logger;
  /** A server span per request when it records; the trace is continued or started, and answered in `traceparent`, either way. */
  tracing?: Tracing;
  redis: Redis;
  document: { paths?: Record<string, Record<string, unknown>> };
  upstreams: Record<string, string>;
  upstreamTimeoutMs: number;
  /** Connections to each service, pooled and relayed alike (UPSTREAM_MAX_SOCKETS). */
  upstreamMaxSockets?: number;
  /** Job and node hosts (`<label>.<node domain>`); without it every host is the API. */
  ingress?: Ingress;
  /** Job and market pages for browsers at `GET /jobs/{job}` and `GET /markets/{market}`; without it those are the API only. */
  pages?: Pages;
  /** Peers whose `X-Forwarded-*` are believed (TRUSTED_PROXIES); default none: the socket's address is the client's. */
  trustedProxies?: BlockList;
  /** Page views per client address. */
  pageLimit?: RateLimiter;
  /** Frontend origins answered with CORS headers on the API host (CORS_ORIGINS); default none. */
  corsOrigins?: readonly string[];
  /** Relayed API requests (ADR 0086): a service connection idle this long is closed; default 4 s, under the services' keep-alive timeout. */
  upstreamIdleMs?: number;
  /** Where each request's duration is observed, by route template (`ingress` for job and node hosts, `page` for pages); absent: not measured. */
  metrics?: Metrics;
}

export interface Gateway {
  handle: http.RequestListener;
  /** The server's 'upgrade' listener: WebSockets to job hosts. */
  upgrade(req: http.IncomingMessage, socket: import('node:stream').Duplex, head: Buffer): void;
  /**
   * Relays the server's API requests to their services as bytes (ADR 0086).
   * Made after the job ingress's relay, it sees each connection first.
   */
  relayApi(server: http.Server, secure: boolean): RelaySet;
  close(): void;
}

/** The gateway's own paths, each its own route label; what else it serves itself is the docs. */
const OWN_ROUTES = new Set(['/healthz', '/readyz', '/openapi.json']);
const DEFAULT_UPSTREAM_MAX_SOCKETS = 256;

/** Takes the caller's request id when it is a sane token, else makes one. */
function requestIdFor(req: http.IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return isSaneRequestId(given) ? given : randomUUID();
}

export function createGateway(opts: GatewayOptions): Gateway {
  const routes = routeTableFrom(opts.document);
  const upstreams = createUpstreams(opts.upstreams, opts.upstreamMaxSockets ?? DEFAULT_UPSTREAM_MAX_SOCKETS);
  for (const route of routes.entries) {
    if (!upstreams.has(route.service)) throw new Error(`no base URL configured for service "${route.service}" (${route.method} ${route.template})`);
  }
  const documentText = Buffer.from(JSON.stringify(opts.document));
  const { logger } = opts;
  const trusted = opts.trustedProxies ?? new BlockList();
  const cors = createCors(opts.corsOrigins ?? []);

  const own = async (path: string, res: http.ServerResponse, requestId: string): Promise<boolean> => {
    if (path === '/healthz') sendJson(res, 200, { status: 'ok' });
    else if (path === '/readyz') await readiness(res, requestId);
    else if (path === '/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': documentText.length });
      res.end(documentText);
    } else return serveDocs(path, res);
    return true;
  };

  const readiness = async (res: http.ServerResponse, requestId: string) => {
    const started = Date.now();
    try {
      await pingRedis(opts.redis);
      sendJson(res, 200, { status: 'ready', checks: { redis: { ok: true, ms: Date.now() - started } } });
    } catch (err) {
      sendError(res, 503, 'ServiceUnavailableError', 'SERVICE_UNAVAILABLE', `redis: ${(err as Error).message}`, requestId);
    }
  };

  /** The server span's name: the route's template, the ingress, or the method alone. */
  const spanName = (req: http.IncomingMessage, path: string): string => {
    if (opts.ingress?.matches(req.headers.host)) return `${req.method} ingress`;
    const route = routes.match(req.method ?? 'GET', path);
    return route ? `${req.method} ${route.template}` : (req.method ?? 'GET');
  };

  const handle: http.RequestListener = (req, res) => {
    const requestId = requestIdFor(req);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const context = openCallContext(req.headers, requestId, opts.tracing, req.method ?? 'GET');
    const { span, traceId } = context;
    if (span) res.once('close', () => span.endServer(spanName(req, path), res.statusCode));
    const seen = { route: UNMATCHED_ROUTE };
    // Request lines are info and debug: without them and without metrics, nothing is timed or listened for.
    if (opts.metrics || logger.isLevelEnabled('info')) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        opts.metrics?.requests.observe({ method: req.method, route: seen.route, status: res.statusCode }, ms / 1000);
        // Signed node calls (claims, heartbeats, syncs) are most of the traffic: their successes at debug.
        const level = res.statusCode < 400 && req.headers['x-ocg-node'] !== undefined ? 'debug' : 'info';
        if (logger.isLevelEnabled(level)) logger[level]({ requestId, traceId, method: req.method, path, status: res.statusCode, ms: Math.round(ms * 100) / 100 }, 'request');
      });
    }
    withCallContext(context, () => serve(req, res, requestId, path, seen, context.traceparent));
  };

  /**
   * `seen.route`: what the request turned out to be, for its metrics. Every
   * answer carries `traceparent`: an API request's is set with the proxied
   * answer's headers (`forward`), every other one's on `res` at once.
   */
  const serve = (req: http.IncomingMessage, res: http.ServerResponse, requestId: string, path: string, seen: { route: string }, traceparent: string): void => {
    if (opts.ingress?.matches(req.headers.host)) {
      res.setHeader(TRACEPARENT_HEADER, traceparent);
      seen.route = 'ingress';
      opts.ingress.handle(req, res, requestId);
      return;
    }
    if (cors) {
      res.setHeader(TRACEPARENT_HEADER, traceparent);
      if (cors.apply(req, res, requestId)) {
        seen.route = 'preflight';
        return;
      }
    }
    const page = opts.pages?.match(req, path);
    if (page && opts.pages) {
      res.setHeader(TRACEPARENT_HEADER, traceparent);
      seen.route = 'page';
      servePageLimited(opts.pages, page, res, requestId, forwardedOf(req, trusted).for, opts.pageLimit);
      return;
    }
    const operation = routes.match(req.method ?? 'GET', path);
    // Every operation's service has an upstream (checked when the gateway is made).
    const upstream = operation && upstreams.get(operation.service);
    if (operation && upstream) {
      seen.route = operation.template;
      proxyRequest(req, res, upstream, requestId, opts.upstreamTimeoutMs, logger, forwardedOf(req, trusted), traceparent);
      return;
    }
    res.setHeader(TRACEPARENT_HEADER, traceparent);
    own(path, res, requestId)
      .then((served) => {
        if (served) {
          seen.route = OWN_ROUTES.has(path) ? path : 'docs';
          return;
        }
        if (routes.hasPath(path)) sendError(res, 405, 'MethodNotAllowedError', 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}`, requestId);
        else sendError(res, 404, 'NotFoundError', 'NOT_FOUND', `no operation at ${req.method} ${path}`, requestId);
      })
      .catch((err: unknown) => {
        logger.error({ err, requestId }, 'gateway error');
        if (!res.headersSent) sendError(res, 500, 'InternalError', 'INTERNAL', 'Internal server error', requestId);
      });
  };

  return {
    handle,
    upgrade: (req, socket, head) => {
      // Before anything else: a client that resets the connection from here on must not end the process.
      guardUpgradeSocket(socket);
      req.headers['x-request-id'] = requestIdFor(req);
      // Not recorded (a WebSocket lives on): the caller's trace, if well formed, or a new one is passed on.
      const trace = openCallContext(req.headers, undefined, undefined, 'GET');
      req.headers[TRACEPARENT_HEADER] = trace.traceparent;
      if (!trace.tracestate) delete req.headers.tracestate;
      if (opts.ingress?.matches(req.headers.host)) opts.ingress.upgrade(req, socket, head);
      else refuseUpgrade(socket, 404);
    },
    relayApi: (server, secure) =>
      relayApi(server, {
        routes,
        upstreams,
        logger,
        metrics: opts.metrics,
        trusted,
        timeoutMs: opts.upstreamTimeoutMs,
        ingress: opts.ingress,
        pages: opts.pages,
        secure,
        idleMs: opts.upstreamIdleMs,
        maxSockets: opts.upstreamMaxSockets ?? DEFAULT_UPSTREAM_MAX_SOCKETS,
        cors: cors !== undefined,
      }),
    close: () => {
      for (const upstream of upstreams.values()) void upstream.dispatcher.destroy();
      opts.ingress?.close();
    },
  };
}
