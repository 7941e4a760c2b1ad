import http from 'node:http';
import https from 'node:https';
import tls, { rootCertificates } from 'node:tls';
import net, { BlockList, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import {
  createAddressPolicy,
  createWsProxy,
  FORWARDING_CLAIMS,
  forward,
  guardedLookup,
  guardUpgradeSocket,
  INTERNAL_HEADER_PREFIX,
  refuseUpgrade,
  rewriteHead,
  tlsServername,
  upstreamAgent,
  valueOf,
  traceForwarded,
  urlRefusal,
  type AddressPolicy,
  type Forwarded,
  type Head,
  type RelayRoute,
} from '@ocg/http';
import { edgeHeaders, forwardedFrom, forwardedOf, OpenConnections } from '../forwarded';
import type { RateLimiter } from '@ocg/redis';
import { sendError } from '../respond';
import { parseIngressHost, type IngressHost } from './host';
import { isNodeApiRoute } from './node-routes';
import { LookupRefused, type IngressResolver, type IngressTarget } from './resolver';
import { sendNotFoundPage, sendTooManyPage, sendUnavailablePage } from './pages';

export interface IngressOptions {
  nodeDomain: string;
  resolver: IngressResolver;
  logger: Logger;
  /** A node ingress silent this long is given up on. */
  timeoutMs: number;
  /** Which addresses a node's ingress URL may lead to; default: public addresses only. */
  policy?: AddressPolicy;
  /** Extra CA certificates (PEM) trusted for `https://` ingress URLs, besides the system's. */
  ca?: string | Buffer;
  /** Peers whose `X-Forwarded-*` are believed (TRUSTED_PROXIES); default none. */
  trustedProxies?: BlockList;
  /** Per client address: lookups of hosts the gateway does not know yet. */
  lookupLimit?: RateLimiter;
  /**
   * Connections to one node ingress at most, for each way there: the pool's
   * and the relay's (a client connection that would open one more relayed
   * connection is served by the HTTP server, whose pool queues its
   * requests). Default 512.
   */
  maxConnections?: number;
  /**
   * Each time a job host label is found to have a forward (the edge proxy,
   * ADR 0093, then sends its requests there itself); `label` is the host's
   * first label, lowercased.
   */
  onForward?: (label: string, job: string, forward: string) => void;
}

export interface Ingress {
  /** True when the host is a job or node host, which this ingress serves. */
  matches(host: string | undefined): boolean;
  handle(req: http.IncomingMessage, res: http.ServerResponse, requestId: string): void;
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * A job host's request on a connection the gateway relays (ADR 0084): a
   * route to the node's ingress when the job's route is known; undefined for
   * anything else (node hosts, pages, unknown hosts), which the HTTP server
   * serves as before.
   */
  relayRoute(head: Head, client: Socket): RelayRoute<RelayedExchange> | undefined | Promise<RelayRoute<RelayedExchange> | undefined>;
  close(): void;
}

/** What the gateway keeps of a relayed request until its answer ends: the answer's headers, the request's metrics and log line. */
export interface RelayedExchange {
  requestId: string;
  traceparent: string;
  method: string;
  path: string;
  started: bigint;
}

/** Dropped from a relayed request: internal credentials, the client's claims about hops, and what the gateway sets itself. */
const dropFromRequest = (name: string): boolean =>
  name.startsWith(INTERNAL_HEADER_PREFIX) || FORWARDING_CLAIMS.has(name) || name === 'x-request-id' || name === 'traceparent' || name === 'tracestate';

/** Where one host label of a target leads: `url` (a forward when `direct`), or the policy's refusal of the node's ingress URL. */
type Resolved = { target: IngressTarget; url?: URL; refusal?: string; direct?: true; forward?: string };

/** A target's ways: its node's ingress, and the labels whose endpoint the node forwards in its kernel (ADR 0092). */
type Ways = { ingress: Resolved; forwards?: Map<string, Resolved> };

const NOWHERE: Resolved = { target: { kind: 'unknown' } };
/** What deployment-manager states a forward is (libs/contracts `NodeEndpointReport.forward`). */
const FORWARD = /^\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}$/;

/**
 * Job and node hosts: `https://<job>[-<port>|-<opIndex>-<port>].<node domain>`
 * and `<node address>.<node domain>`, proxied (streamed, WebSockets included)
 * to the ingress of the node running the job, with the Host header unchanged
 * so the node picks the op and port from it. A job that is not running, or
 * not known, gets the not-found page; the node answers 404 itself until the
 * endpoint is ready and 503 while a continuous health check fails. A label
 * whose endpoint is ready and online has a forward instead (ADR 0092): the
 * node's kernel passes its port to the container, so the gateway connects
 * there and the node's process is off the path; one that fails answers as
 * an unreachable node, and the job's route is looked up again. Node hosts
 * reach the node API's routes only. Ingress URLs and forwards are the nodes'
 * own word, so they are checked against `policy` before every connection
 * (literal addresses here, names as they resolve: ADR 0011); a refused
 * forward leaves its label to the node's ingress.
 */
export function createIngress(opts: IngressOptions): Ingress {
  const policy = opts.policy ?? createAddressPolicy();
  const lookup = guardedLookup(policy);
  const ca = opts.ca ? [...rootCertificates, opts.ca] : undefined;
  // Plain requests: undici's keep-alive pools, one per node ingress. WebSockets: node's agents (see createWsProxy).
  const maxConnections = opts.maxConnections ?? 512;
  const dispatcher = upstreamAgent({ connections: maxConnections, lookup, ca });
  const common = { keepAlive: true, maxSockets: maxConnections, scheduling: 'lifo' as const, lookup };
  const agents = { http: new http.Agent(common), https: new https.Agent({ ...common, ca }) };
  const wsProxy = createWsProxy();
  const trusted = opts.trustedProxies ?? new BlockList();
  const { logger } = opts;
  // Parsed and checked once per ingress URL (a node's URL changes only when it registers again), and forward.
  const checked = new LRUCache<string, { url?: URL; refusal?: string }>({ max: 10_000 });
  const check = (text: string, forward?: boolean) => {
    let hit = checked.get(text);
    if (!hit) {
      const refusal = urlRefusal(text, policy);
      // Once per URL, not per request: its labels are served through the node's ingress meanwhile.
      if (refusal && forward) logger.warn({ forward: text, refusal }, 'job endpoint forward refused; served through the node ingress');
      checked.set(text, (hit = refusal ? { refusal } : { url: new URL(text) }));
    }
    return hit;
  };

  // Host headers parsed once each (the same few hosts carry nearly every request).
  const hosts = new LRUCache<string, IngressHost | false>({ max: 10_000 });
  const parse = (host: string | undefined): IngressHost | undefined => {
    if (host === undefined) return undefined;
    let parsed = hosts.get(host);
    if (parsed === undefined) hosts.set(host, (parsed = parseIngressHost(host, opts.nodeDomain) ?? false));
    return parsed || undefined;
  };
  // Made once per target, when a request first meets it: the resolver hands out the same object until the route
  // changes, so a request finds its way with two map reads and makes nothing (ADR 0087). Only labels with a
  // forward get one of their own, so the labels clients make up cannot grow the map.
  const ways = new WeakMap<IngressTarget, Ways>();
  const waysOf = (target: IngressTarget): Ways => {
    if (target.kind !== 'job' && target.kind !== 'node') return { ingress: { target } };
    const ingress: Resolved = { target, ...check(target.ingressUrl) };
    if (target.kind === 'node') return { ingress };
    const forwards = new Map<string, Resolved>();
    for (const [label, forward] of Object.entries(target.forwards)) {
      // Refused by the policy, or no `<IPv4>:<port>` at all: the node's ingress serves the label, as before forwards.
      const url = typeof forward === 'string' && FORWARD.test(forward) ? check(`http://${forward}`, true).url : undefined;
      if (url) forwards.set(label.toLowerCase(), { target, url, direct: true, forward });
    }
    return forwards.size > 0 ? { ingress, forwards } : { ingress };
  };
  const { onForward } = opts;
  const resolved = (target: IngressTarget, label: string): Resolved => {
    let w = ways.get(target);
    if (!w) ways.set(target, (w = waysOf(target)));
    const direct = w.forwards?.get(label);
    if (!direct) return w.ingress;
    if (onForward && target.kind === 'job' && direct.forward) onForward(label, target.job, direct.forward);
    return direct;
  };

  /** A fresh route at once, without a promise in between (most requests); undefined: `resolve` looks it up. */
  const known = (parsed: IngressHost | undefined): Resolved | undefined => {
    if (!parsed) return NOWHERE;
    const target = opts.resolver.fresh(parsed.address);
    return target && resolved(target, parsed.label);
  };

  const resolve = async (parsed: IngressHost | undefined, client: string): Promise<Resolved> => {
    if (!parsed) return NOWHERE;
    const target = await opts.resolver.resolve(parsed.address, async () => {
      const decision = await opts.lookupLimit?.check(client);
      return decision && !decision.allowed ? new LookupRefused(decision.retryAfterSeconds) : undefined;
    });
    return resolved(target, parsed.label);
  };

  const serve = (req: http.IncomingMessage, res: http.ServerResponse, requestId: string, forwarded: Forwarded, r: Resolved): void => {
    const { target } = r;
    if (target.kind === 'node' && !isNodeApiRoute(req.method, req.url)) {
      return sendError(res, 404, 'NotFoundError', 'NOT_FOUND', `no node API operation at ${req.method} ${(req.url ?? '/').split('?')[0]}`, requestId);
    }
    if (target.kind === 'node-offline')
      return sendError(res, 503, 'ServiceUnavailableError', 'NODE_OFFLINE', 'This node has not been seen recently; it serves nothing until it is back', requestId);
    if (target.kind === 'not-ready') {
      return sendNotFoundPage(
        res,
        req.headers.host ?? '',
        target.status === 'QUEUED' ? 'The job is queued and waits for a node.' : `The job is ${target.status.toLowerCase()}.`,
        requestId,
      );
    }
    if (target.kind === 'unknown') return sendNotFoundPage(res, req.headers.host ?? '', 'No job or node has this address.', requestId);
    if (!r.url) {
      logger.warn({ requestId, target: target.ingressUrl, refusal: r.refusal }, 'node ingress URL refused');
      return sendUnavailablePage(res, 'The node running this job cannot be reached from here.', requestId);
    }
    const { url } = r;
    traceForwarded(req, res, target.kind === 'job' ? 'job ingress' : 'node API');
    forward(req, res, { url, dispatcher, preserveHost: true, forwarded }, requestId, opts.timeoutMs, (err) => {
      if (!r.direct) logger.warn({ requestId, err: err.message, target: target.ingressUrl }, 'node ingress unreachable');
      else {
        // The endpoint (or its node) went away before deployment-manager said so: the route is looked up again.
        if (target.kind === 'job') opts.resolver.forget(target.job);
        logger.warn({ requestId, err: err.message, target: url.host }, 'job endpoint unreachable');
      }
      sendUnavailablePage(res, 'The node running this job is not answering; try again shortly.', requestId);
    });
  };

  /** Each client connection's route to the node ingress or forward it last reached: made again only for another (no closures per request). */
  const routes = new WeakMap<Socket, RelayRoute<RelayedExchange>>();
  /** Each client connection's relayed connection to a node ingress, and how many are open to each. */
  const upstreamOf = new WeakMap<Socket, Socket>();
  const open = new OpenConnections();

  /** A relay route to a job's forward or node ingress; undefined: the HTTP server serves the request. */
  const relayTo = (r: Resolved, client: Socket): RelayRoute<RelayedExchange> | undefined => {
    const { target, url } = r;
    if (target.kind !== 'job' || !url) return undefined;
    const last = routes.get(client);
    const upstream = upstreamOf.get(client);
    const current = last?.key === url.href && upstream !== undefined && !upstream.destroyed;
    // A new connection to a node ingress already at its limit: the HTTP server's pool queues the request instead.
    if (!current && open.count(url.href) >= maxConnections) return undefined;
    if (last?.key === url.href) return last;
    const route = routeTo(url, client, r.direct && target.job);
    routes.set(client, route);
    return route;
  };

  /** `forwardOf`: the job whose forward `url` is (a refused connection goes to the HTTP server, which answers and forgets). */
  const routeTo = (url: URL, client: Socket, forwardOf?: string): RelayRoute<RelayedExchange> => {
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return {
      key: url.href,
      connect: (onread) => {
        const socket =
          url.protocol === 'https:' ? tls.connect({ host, port, servername: tlsServername(url) || undefined, ca, lookup }) : net.connect({ host, port, lookup, onread });
        upstreamOf.set(client, socket);
        open.add(url.href, socket);
        // A forward that fails once connected (the container gone: reset) cuts the exchange, as a node ingress's would.
        if (forwardOf) socket.once('connect', () => socket.once('error', () => opts.resolver.forget(forwardOf)));
        return socket;
      },
      forward: (head, raw) => {
        const { requestId, traceparent, lines } = edgeHeaders(client, (name) => valueOf(head, name), trusted);
        const q = head.target.indexOf('?');
        return {
          bytes: rewriteHead(head, raw, dropFromRequest, lines),
          exchange: { requestId, traceparent, method: head.method, path: q === -1 ? head.target : head.target.slice(0, q), started: process.hrtime.bigint() },
        };
      },
    };
  };
  return {
    matches: (host) => parse(host) !== undefined,
    relayRoute(head, socket) {
      const parsed = parse(valueOf(head, 'host'));
      if (!parsed) return undefined;
      const hit = known(parsed);
      if (hit) return relayTo(hit, socket);
      // Looked up as for any request (a host the gateway does not know counts against the client's limit); a refusal or a
      // failure is left to the HTTP server, which answers it with its page.
      const client = forwardedFrom(socket, (name) => valueOf(head, name), trusted).for;
      return resolve(parsed, client).then(
        (r) => relayTo(r, socket),
        () => undefined,
      );
    },
    handle(req, res, requestId) {
      const forwarded = forwardedOf(req, trusted);
      const parsed = parse(req.headers.host);
      const hit = known(parsed);
      if (hit) return serve(req, res, requestId, forwarded, hit);
      resolve(parsed, forwarded.for).then(
        (r) => serve(req, res, requestId, forwarded, r),
        (err: Error) => {
          if (err instanceof LookupRefused) return sendTooManyPage(res, err.retryAfterSeconds, requestId);
          logger.warn({ requestId, err: err.message }, 'ingress lookup failed');
          sendUnavailablePage(res, 'Job routing is unavailable right now; try again shortly.', requestId);
        },
      );
    },
    upgrade(req, socket, head) {
      guardUpgradeSocket(socket);
      const forwarded = forwardedOf(req, trusted);
      resolve(parse(req.headers.host), forwarded.for).then(
        ({ target, url, direct }) => {
          if (socket.destroyed) return;
          if (target.kind !== 'job') return refuseUpgrade(socket, target.kind === 'node-offline' ? 503 : 404);
          if (!url) return refuseUpgrade(socket, 503);
          const requestId = String(req.headers['x-request-id'] ?? '');
          // What `forward` drops from plain requests: internal credentials and the client's own claims about hops.
          for (const name of Object.keys(req.headers)) {
            if (name.startsWith(INTERNAL_HEADER_PREFIX) || name === 'forwarded' || name.startsWith('x-forwarded-') || name === 'x-real-ip') delete req.headers[name];
          }
          const headers = {
            'x-forwarded-for': forwarded.for,
            'x-forwarded-host': forwarded.host,
            'x-forwarded-proto': forwarded.proto,
            ...(requestId ? { 'x-request-id': requestId } : {}),
          };
          wsProxy.proxy(req, socket, head, { url: url.href, agent: url.protocol === 'https:' ? agents.https : agents.http, headers }, (err) => {
            if (!direct) return logger.debug({ err: err.message, target: target.ingressUrl }, 'websocket to node ingress failed');
            opts.resolver.forget(target.job);
            logger.debug({ err: err.message, target: url.host }, 'websocket to job endpoint failed');
          });
        },
        (err: Error) => refuseUpgrade(socket, err instanceof LookupRefused ? 429 : 503),
      );
    },
    close() {
      wsProxy.close();
      void dispatcher.destroy();
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
