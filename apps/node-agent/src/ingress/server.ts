import type http from 'node:http';
import net, { type OnReadOpts, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Executor } from '../executor/executor';
import { parseHost } from './host-rules';
import {
  createWsProxy,
  forward,
  guardUpgradeSocket,
  INTERNAL_HEADER_PREFIX,
  refuseUpgrade,
  relayConnections,
  rewriteHead,
  upstreamAgent,
  valueOf,
  type Head,
  type RelayRoute,
  type RelaySet,
} from '@ocg/http';
import { sendPage } from './pages';

export interface IngressOptions {
  executor: Executor;
  logger: Logger;
  /** Serves `<node address>.<domain>`; absent: that host is not routed. */
  nodeApi?: http.RequestListener;
  nodeAddress?: string;
  trustForwardedHost: boolean;
}

export interface Ingress {
  handle: http.RequestListener;
  upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Relays the server's connections to containers as bytes (ADR 0084); what is not a ready endpoint goes to `handle`. */
  relay(server: http.Server): RelaySet;
  close(): void;
}

/** What the node keeps of a relayed request until its answer ends. */
interface Exchange {
  job: string;
  requestId: string | undefined;
}

/** Dropped from a relayed request as `forward` drops them: internal credentials. */
const dropFromRequest = (name: string): boolean => name.startsWith(INTERNAL_HEADER_PREFIX);
const dropFromAnswer = (name: string): boolean => name === 'x-request-id';
/** Dropped from a relayed request: internal credentials, and the forwarded-for chain (sent again with the caller appended). */
const dropFromRelayed = (name: string): boolean => dropFromRequest(name) || name === 'x-forwarded-for';

/**
 * Streams requests to containers (no buffering either way) over keep-alive
 * connections; WebSockets are piped after the upgrade. Nothing is proxied
 * until the endpoint passed its startup checks (404 page), nor while a
 * continuous check fails (503 page).
 */
export function createIngress(opts: IngressOptions): Ingress {
  // Keep-alive pools per container endpoint (undici: about half the work per request of node's client and agent).
  const dispatcher = upstreamAgent({ connections: 1024 });
  // Endpoint URLs, made once per container address and port rather than per request (a plain map, emptied
  // when it holds too many: an LRU's bookkeeping cost more per request than the URL it saved).
  const urls = new Map<string, URL>();
  const urlOf = (host: string, port: number): URL => {
    const key = `${host}:${port}`;
    let url = urls.get(key);
    if (!url) {
      if (urls.size >= 10_000) urls.clear();
      urls.set(key, (url = new URL(`http://${key}`)));
    }
    return url;
  };
  // Upgraded sockets are invisible to the HTTP server's graceful close: closed here.
  const upgraded = new Set<Duplex>();
  // Plain requests go through `forward` (ADRs 0007, 0065). Upgraded sockets leave the pool for good, so
  // WebSockets go through createWsProxy (which handles their failure modes) on connections of their own.
  const wsProxy = createWsProxy();
  const onError = (err: Error, _req: http.IncomingMessage, res: http.ServerResponse): void => {
    opts.logger.debug({ err: err.message }, 'proxy error');
    if (!res.headersSent) sendPage(res, 502);
    else res.destroy();
  };

  const hostOf = (req: http.IncomingMessage): string | undefined => {
    const forwarded = req.headers['x-forwarded-host'];
    if (opts.trustForwardedHost && typeof forwarded === 'string') return forwarded.split(',')[0];
    return req.headers.host;
  };

  const resolve = (req: http.IncomingMessage) => {
    const host = parseHost(hostOf(req), opts.nodeAddress);
    if (host.kind === 'node-api' && opts.nodeApi) return { kind: 'node-api', app: opts.nodeApi } as const;
    if (host.kind !== 'job') return { kind: 'not-found' } as const;
    return opts.executor.ingressTarget(host.job, host.rest);
  };

  /** Each client connection's route to the endpoint it last reached: made again only when the endpoint differs (no closures per request). */
  const routes = new WeakMap<Socket, RelayRoute<Exchange> & { job: string }>();

  /** A ready endpoint's container, as a relay route; undefined: `handle` serves the request (node API, pages). */
  const relayRoute = (head: Head, client: Socket): RelayRoute<Exchange> | undefined => {
    const forwardedHost = valueOf(head, 'x-forwarded-host');
    const host = parseHost(opts.trustForwardedHost && forwardedHost !== undefined ? forwardedHost.split(',')[0] : valueOf(head, 'host'), opts.nodeAddress);
    if (host.kind !== 'job') return undefined;
    const target = opts.executor.ingressTarget(host.job, host.rest);
    if (target.kind !== 'proxy') return undefined;
    const key = `${target.host}:${target.port}`;
    const last = routes.get(client);
    if (last?.key === key && last.job === target.job) return last;
    const remote = client.remoteAddress ?? '';
    const route = {
      key,
      job: target.job,
      connect: (onread: OnReadOpts | undefined) => net.connect({ port: target.port, host: target.host, onread }),
      forward: (h: Head, raw: Buffer) => {
        // As `forward` does for a hop behind the edge: the caller's address appended, the edge's host and scheme kept.
        const prior = valueOf(h, 'x-forwarded-for');
        let extra = '';
        if (valueOf(h, 'x-forwarded-host') === undefined) extra += `x-forwarded-host: ${valueOf(h, 'host') ?? ''}\r\n`;
        if (valueOf(h, 'x-forwarded-proto') === undefined) extra += 'x-forwarded-proto: http\r\n';
        const bytes = rewriteHead(h, raw, dropFromRelayed, `x-forwarded-for: ${prior ? `${prior}, ${remote}` : remote}\r\n${extra}`);
        return { bytes, exchange: { job: target.job, requestId: valueOf(h, 'x-request-id') } };
      },
    };
    routes.set(client, route);
    return route;
  };

  return {
    relay: (server) =>
      relayConnections<Exchange>(server, false, {
        route: relayRoute,
        answer: (head, raw, x) => (x.requestId ? rewriteHead(head, raw, dropFromAnswer, `x-request-id: ${x.requestId}\r\n`) : raw),
        done: (x, status) => {
          if (status > 0) opts.executor.metrics?.proxied(x.job, status);
        },
        idleMs: server.keepAliveTimeout,
        headMs: server.headersTimeout,
        timeoutMs: 0,
      }),
    handle: (req, res) => {
      const target = resolve(req);
      if (target.kind === 'node-api') return target.app(req, res);
      if (target.kind === 'proxy') {
        const metrics = opts.executor.metrics;
        // 'finish' comes at most once: `on` spares the wrapper `once` makes.
        if (metrics) res.on('finish', () => metrics.proxied(target.job, res.statusCode));
        const requestId = req.headers['x-request-id'];
        return forward(req, res, { url: urlOf(target.host, target.port), dispatcher, preserveHost: true }, typeof requestId === 'string' ? requestId : '', 0, (err) =>
          onError(err, req, res),
        );
      }
      sendPage(res, target.kind === 'unavailable' ? 503 : 404);
    },
    upgrade: (req, socket, head) => {
      guardUpgradeSocket(socket);
      const target = resolve(req);
      if (target.kind === 'proxy') {
        upgraded.add(socket);
        socket.once('close', () => upgraded.delete(socket));
        return wsProxy.proxy(req, socket, head, { url: `ws://${target.host}:${target.port}`, headers: forwardedWs(req) }, (err) =>
          opts.logger.debug({ err: err.message }, 'websocket upstream unreachable'),
        );
      }
      refuseUpgrade(socket, target.kind === 'unavailable' ? 503 : 404);
    },
    close: () => {
      for (const socket of upgraded) socket.destroy();
      wsProxy.close();
      void dispatcher.destroy();
    },
  };
}

/** The `x-forwarded-*` of a WebSocket to a container, without trusting more than `forward` does: the caller's address appended. */
function forwardedWs(req: http.IncomingMessage): Record<string, string> {
  const remote = req.socket.remoteAddress ?? '';
  const prior = req.headers['x-forwarded-for'];
  return {
    'x-forwarded-for': prior ? `${String(prior)}, ${remote}` : remote,
    'x-forwarded-host': String(req.headers['x-forwarded-host'] ?? req.headers.host ?? ''),
    'x-forwarded-proto': String(req.headers['x-forwarded-proto'] ?? 'ws'),
  };
}
