import type http from 'node:http';
import net, { type BlockList, type Socket } from 'node:net';
import tls from 'node:tls';
import type { Logger } from 'pino';
import type { RouteTable } from '@ocg/api-spec';
import type { ErrorBody } from '@ocg/contracts';
import {
  FORWARDING_CLAIMS,
  INTERNAL_HEADER_PREFIX,
  listOf,
  relayConnections,
  rewriteHead,
  tlsServername,
  traceIdOf,
  type Head,
  type Metrics,
  type RelayRoute,
  type RelaySet,
} from '@ocg/http';
import { mergeVary } from './cors';
import { edgeHeaders, OpenConnections } from './forwarded';
import type { Ingress } from './ingress';
import type { Pages } from './pages';
import type { Upstream } from './proxy';

export interface ApiRelayOptions {
  routes: RouteTable;
  upstreams: Map<string, Upstream>;
  logger: Logger;
  metrics?: Metrics;
  trusted: BlockList;
  /** A service silent this long while its answer is awaited answers 504 (as `forward`), or is cut within its answer. */
  timeoutMs: number;
  ingress?: Ingress;
  pages?: Pages;
  /** The server is HTTPS: connections are taken once TLS is set up. */
  secure: boolean;
  /** A service connection idle this long is closed; default UPSTREAM_IDLE_MS. */
  idleMs?: number;
  /**
   * Relayed connections open to one service at most (UPSTREAM_MAX_SOCKETS,
   * as the HTTP server's pools): a client connection that would open one
   * more is served by the HTTP server, whose pool queues its requests.
   */
  maxSockets: number;
  /**
   * The gateway has CORS origins: a request with an `Origin` goes to the HTTP
   * server (`cors.ts`); every relayed answer varies by `Origin` and loses the
   * service's own CORS headers, as there.
   */
  cors?: boolean;
}

/** What the gateway keeps of a relayed API request until its answer ends. */
interface ApiExchange {
  connection: ApiConnection;
  requestId: string;
  traceparent: string;
  method: string;
  path: string;
  route: string;
  service: string;
  node: boolean;
  started: bigint;
  answered: boolean;
  stream: boolean;
  timedOut: boolean;
}

/**
 * Dropped from a relayed request, as `forward` drops them: internal
 * credentials, the client's claims about hops, the proxy's own headers, and
 * what the gateway sets itself. `Connection`, `Keep-Alive` and
 * `Transfer-Encoding` pass: the client's and the service's connections are
 * paired, so they describe the pair (ADR 0084).
 */
const dropFromRequest = (name: string): boolean =>
  name.startsWith(INTERNAL_HEADER_PREFIX) ||
  FORWARDING_CLAIMS.has(name) ||
  name === 'host' ||
  name === 'x-request-id' ||
  name === 'traceparent' ||
  name === 'tracestate' ||
  name === 'te' ||
  name.startsWith('proxy-');

/**
 * A service connection idle this long is closed, before the service's own
 * keep-alive timeout (node's default, 5 s) can close it under a request on
 * its way (undici's pool does the same from the `Keep-Alive` hint, less 1 s).
 */
const UPSTREAM_IDLE_MS = 4000;

/** Dropped from a relayed answer: what the gateway states itself. */
const dropFromAnswer = (name: string): boolean => name === 'x-request-id' || name === 'traceparent';
/** With CORS origins, also the service's `Vary` (merged with the gateway's) and its CORS headers (which origins may read the API is the gateway's decision). */
const dropFromCorsAnswer = (name: string): boolean => dropFromAnswer(name) || name === 'vary' || name.startsWith('access-control-');

/** A header as node's parser gives it: repeated lines joined with ", " (so a repeated request id is no sane one, as on the HTTP server). */
function joined(head: Head, name: string): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < head.names.length; i++) if (head.names[i] === name) out = out === undefined ? head.values[i] : `${out}, ${head.values[i]}`;
  return out;
}

/** The client connection's relayed exchanges in order, and a route per service (made once per connection). */
class ApiConnection {
  readonly inFlight: ApiExchange[] = [];
  /** The route template of the request last routed: the head the relay forwards next (a held head is not routed again). */
  template = '';
  /** The service connection the exchanges in flight are on (the relay switches only between answers). */
  upstream: Socket | undefined;
  /** The service `upstream` is a connection to. */
  upstreamService: string | undefined;
  readonly routes = new Map<string, RelayRoute<ApiExchange>>();
  constructor(readonly client: Socket) {}
}

/**
 * The API host's requests relayed to their service on the connection (ADR
 * 0086), as the job ingress's are (ADR 0084): heads rewritten as `forward`
 * rewrites them (the edge's `x-forwarded-*`, the request id, the trace
 * context, the service's Host; internal credentials and hop claims dropped),
 * bodies and answers streamed as bytes, each answer with the request id and
 * the gateway's `traceparent`, each request observed and logged as the
 * HTTP server's are. Whatever the gateway answers itself, or decorates
 * (pages, job and node hosts, its own paths, 404 and 405, upgrades, `Expect`),
 * a request with an `Origin` when the gateway has CORS origins, and a
 * service that cannot be connected to, go to the HTTP server, which serves
 * them as before. Not for a recording tracer (server spans).
 */
export function relayApi(server: http.Server, opts: ApiRelayOptions): RelaySet {
  const { logger, metrics, routes, trusted } = opts;
  const connections = new WeakMap<Socket, ApiConnection>();
  const idleMs = opts.idleMs ?? UPSTREAM_IDLE_MS;
  /** Relayed connections open (or opening) to each service. */
  const open = new OpenConnections();

  /** The service went silent: an answer not begun is answered 504 (the connection kept), one under way is cut. */
  const stalled = (connection: ApiConnection, upstream: Socket, inject: (bytes: Buffer) => void): void => {
    const first = connection.inFlight[0];
    if (!first || first.stream) return;
    if (first.answered) return void upstream.destroy();
    first.timedOut = true;
    const name = first.service;
    // The relay reads the reply as the service's own answer: framed, rewritten, done; the late answer, if any, never comes.
    inject(timeoutReply(first, `${name} did not answer within ${opts.timeoutMs} ms`, server.keepAliveTimeout));
    upstream.destroy();
  };

  const routeFor = (connection: ApiConnection, upstream: Upstream): RelayRoute<ApiExchange> => {
    const { url } = upstream;
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const { client } = connection;
    return {
      key: upstream.name,
      connect: (_onread, inject) => {
        const socket = url.protocol === 'https:' ? tls.connect({ host, port, servername: tlsServername(url) || undefined }) : net.connect({ host, port });
        // Idle, closed; with an answer awaited or under way, timed as `forward` times it (`forward` below and `done` switch the two).
        socket.setTimeout(idleMs);
        socket.on('timeout', () => (connection.inFlight.length === 0 ? socket.destroy() : stalled(connection, socket, inject)));
        open.add(upstream.name, socket);
        connection.upstream = socket;
        connection.upstreamService = upstream.name;
        return socket;
      },
      forward: (head, raw) => {
        const { requestId, traceparent, lines } = edgeHeaders(client, (name) => joined(head, name), trusted);
        const extra = `${lines}host: ${url.host}\r\n`;
        const q = head.target.indexOf('?');
        const path = q === -1 ? head.target : head.target.slice(0, q);
        const exchange: ApiExchange = {
          connection,
          requestId,
          traceparent,
          method: head.method,
          path,
          route: connection.template,
          service: upstream.name,
          node: head.names.includes('x-ocg-node'),
          started: process.hrtime.bigint(),
          answered: false,
          stream: false,
          timedOut: false,
        };
        if (connection.inFlight.push(exchange) === 1) connection.upstream?.setTimeout(opts.timeoutMs);
        return { bytes: rewriteHead(head, raw, dropFromRequest, extra), exchange };
      },
    };
  };

  /** The request's route to its service, or undefined for whatever the HTTP server serves. */
  const route = (head: Head, client: Socket): RelayRoute<ApiExchange> | undefined => {
    const host = joined(head, 'host');
    if (opts.ingress?.matches(host)) return undefined;
    if (head.names.includes('upgrade') || head.names.includes('expect') || (opts.cors && head.names.includes('origin'))) return undefined;
    const q = head.target.indexOf('?');
    const path = q === -1 ? head.target : head.target.slice(0, q);
    if (opts.pages && head.method === 'GET') {
      const req = { method: 'GET', headers: { accept: joined(head, 'accept'), authorization: joined(head, 'authorization'), cookie: joined(head, 'cookie') } };
      if (opts.pages.match(req as unknown as http.IncomingMessage, path)) return undefined;
    }
    const operation = routes.match(head.method, path);
    const upstream = operation && opts.upstreams.get(operation.service);
    if (!upstream) return undefined;
    let connection = connections.get(client);
    if (!connection) connections.set(client, (connection = new ApiConnection(client)));
    // A new connection to a service already at its limit: the HTTP server's pool queues the request instead.
    const current = connection.upstream !== undefined && !connection.upstream.destroyed && connection.upstreamService === upstream.name;
    if (!current && open.count(upstream.name) >= opts.maxSockets) return undefined;
    connection.template = operation.template;
    let r = connection.routes.get(upstream.name);
    if (!r) connection.routes.set(upstream.name, (r = routeFor(connection, upstream)));
    return r;
  };

  return relayConnections<ApiExchange>(server, opts.secure, {
    route,
    answer: (head, raw, x) => {
      x.answered = true;
      x.stream = (listOf(head, 'content-type')[0] ?? '').startsWith('text/event-stream');
      const own = `traceparent: ${x.traceparent}\r\nx-request-id: ${x.requestId}\r\n`;
      if (!opts.cors) return rewriteHead(head, raw, dropFromAnswer, own);
      return rewriteHead(head, raw, dropFromCorsAnswer, `vary: ${mergeVary('Origin', joined(head, 'vary') ?? '')}\r\n${own}`);
    },
    done: (x, status) => {
      const { inFlight } = x.connection;
      const at = inFlight.indexOf(x);
      if (at !== -1) inFlight.splice(at, 1);
      if (inFlight.length === 0) x.connection.upstream?.setTimeout(idleMs);
      if (x.timedOut) logger.warn({ requestId: x.requestId, service: x.service }, 'upstream timed out');
      if (!metrics && !logger.isLevelEnabled('info')) return;
      const ms = Number(process.hrtime.bigint() - x.started) / 1e6;
      if (status === 0) return logger.debug({ requestId: x.requestId, method: x.method, path: x.path, ms }, 'relayed request cut off');
      metrics?.requests.observe({ method: x.method, route: x.route, status }, ms / 1000);
      // Signed node calls (claims, heartbeats, syncs) are most of the traffic: their successes at debug.
      const level = status < 400 && x.node ? 'debug' : 'info';
      if (logger.isLevelEnabled(level))
        logger[level](
          { requestId: x.requestId, traceId: traceIdOf(x.traceparent), method: x.method, path: x.path, status, ms: Math.round(ms * 100) / 100, relayed: true },
          'request',
        );
    },
    idleMs: server.keepAliveTimeout,
    headMs: server.headersTimeout,
    // Silence is judged per exchange above (`stalled`): a 504 while an answer is awaited, as `forward` answers; idleness by `idleMs`.
    timeoutMs: 0,
  });
}

/** The 504 `forward` answers for a service that stalls, as the service's answer would arrive (the relay adds the request id and trace context). */
function timeoutReply(x: ApiExchange, message: string, keepAliveMs: number): Buffer {
  const body: ErrorBody = { name: 'GatewayTimeoutError', message, status: 504, code: 'UPSTREAM_TIMEOUT', requestId: x.requestId };
  const text = JSON.stringify(body);
  const head =
    `HTTP/1.1 504 Gateway Timeout\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\n` +
    `date: ${new Date().toUTCString()}\r\nconnection: keep-alive\r\nkeep-alive: timeout=${Math.floor(keepAliveMs / 1000)}\r\n\r\n`;
  return Buffer.from(x.method === 'HEAD' ? head : head + text, 'utf8');
}
