import type http from 'node:http';
import type { BlockList } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Executor } from '../executor/executor';
import { parseHost } from './host-rules';
import { createWsProxy, forward, guardUpgradeSocket, refuseUpgrade, upstreamAgent } from '@ocg/http';
import { sendPage } from './pages';
import { hostName, pipedOf, PROBE_HEADER, PROXY_PROTOCOL_HEADER, proxyPeer, type Piped } from './piped';

export interface IngressOptions {
  executor: Executor;
  logger: Logger;
  /** Serves `<node address>.<domain>`; absent: that host is not routed. */
  nodeApi?: http.RequestListener;
  nodeAddress?: string;
  trustForwardedHost: boolean;
  /** Peers (gateways) whose PROXY v2 headers are believed (INGRESS_PROXY_FROM, see piped.ts); absent: nobody's. */
  proxyFrom?: BlockList;
}

export interface Ingress {
  handle: http.RequestListener;
  upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;
  close(): void;
}

/**
 * Streams requests to containers (no buffering either way) over keep-alive
 * connections; WebSockets are piped after the upgrade. Nothing is proxied
 * until the endpoint passed its startup checks (404 page), nor while a
 * continuous check fails (503 page).
 */
export function createIngress(opts: IngressOptions): Ingress {
  // Keep-alive pools per container endpoint (undici: about half the work per request of node's client and agent).
  const dispatcher = upstreamAgent({ connections: 1024 });
  // Endpoint URLs, made once per container address and port rather than per request.
  const urls = new LRUCache<string, URL>({ max: 10_000 });
  const urlOf = (host: string, port: number): URL => {
    const key = `${host}:${port}`;
    let url = urls.get(key);
    if (!url) urls.set(key, (url = new URL(`http://${key}`)));
    return url;
  };
  // Upgraded sockets are invisible to the HTTP server's graceful close: closed here.
  const upgraded = new Set<Duplex>();
  // Plain requests go through `forward` (ADRs 0007, 0065): several times faster than http-proxy's web path.
  // Upgraded sockets leave the pool for good, so WebSockets use http-proxy
  // (behind createWsProxy, which handles its failure modes) on connections of their own.
  const wsProxy = createWsProxy();
  const onError = (err: Error, _req: http.IncomingMessage, res: http.ServerResponse): void => {
    opts.logger.debug({ err: err.message }, 'proxy error');
    if (!res.headersSent) sendPage(res, 502);
    else res.destroy();
  };

  const hostOf = (req: http.IncomingMessage, piped: Piped | undefined): string | undefined => {
    if (piped) return req.headers.host;
    const forwarded = req.headers['x-forwarded-host'];
    if (opts.trustForwardedHost && typeof forwarded === 'string') return forwarded.split(',')[0];
    return req.headers.host;
  };

  /**
   * A piped connection was routed by its SNI name to one job: a request for
   * another host would reach what the gateway did not route there (another
   * job, the node API), so it is misdirected (421) and the client asks again
   * on a connection of its own.
   */
  const resolve = (req: http.IncomingMessage, piped: Piped | undefined) => {
    if (piped && hostName(req.headers.host) !== piped.authority) return { kind: 'misdirected' } as const;
    const host = parseHost(hostOf(req, piped), opts.nodeAddress);
    if (host.kind === 'node-api' && opts.nodeApi && !piped) return { kind: 'node-api', app: opts.nodeApi } as const;
    if (host.kind !== 'job') return { kind: 'not-found' } as const;
    return opts.executor.ingressTarget(host.job, host.rest);
  };

  return {
    handle: (req, res) => {
      const piped = pipedOf(req.socket);
      if (req.headers[PROBE_HEADER] !== undefined) return answerProbe(req, res, opts.proxyFrom, piped);
      const target = resolve(req, piped);
      if (target.kind === 'node-api') return target.app(req, res);
      if (target.kind === 'proxy') {
        const metrics = opts.executor.metrics;
        if (metrics) res.once('finish', () => metrics.proxied(target.job, res.statusCode));
        const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : '';
        // Piped: the gateway's word on the client replaces the client's own claims, as on the gateway's HTTP path.
        const forwarded = piped && { for: `${piped.client}, ${piped.peer}`, host: req.headers.host ?? '', proto: 'https' };
        return forward(req, res, { url: urlOf(target.host, target.port), dispatcher, preserveHost: true, forwarded }, requestId, 0, (err) => onError(err, req, res));
      }
      sendPage(res, target.kind === 'misdirected' ? 421 : target.kind === 'unavailable' ? 503 : 404);
    },
    upgrade: (req, socket, head) => {
      guardUpgradeSocket(socket);
      const piped = pipedOf(req.socket);
      const target = resolve(req, piped);
      if (target.kind === 'proxy') {
        // Piped: what the client claims about earlier hops goes, as on the gateway's own WebSocket path.
        if (piped) for (const name of Object.keys(req.headers)) if (name === 'forwarded' || name.startsWith('x-forwarded-') || name === 'x-real-ip') delete req.headers[name];
        upgraded.add(socket);
        socket.once('close', () => upgraded.delete(socket));
        return wsProxy.proxy(req, socket, head, { url: `ws://${target.host}:${target.port}`, headers: forwardedWs(req, piped) }, (err) =>
          opts.logger.debug({ err: err.message }, 'websocket upstream unreachable'),
        );
      }
      refuseUpgrade(socket, target.kind === 'misdirected' ? 421 : target.kind === 'unavailable' ? 503 : 404);
    },
    close: () => {
      for (const socket of upgraded) socket.destroy();
      wsProxy.close();
      void dispatcher.destroy();
    },
  };
}

/** Tells a peer of INGRESS_PROXY_FROM that its PROXY v2 headers are believed here (never proxied to a job). */
function answerProbe(req: http.IncomingMessage, res: http.ServerResponse, from: BlockList | undefined, piped: Piped | undefined): void {
  const believed = !piped && proxyPeer(from, req.socket.remoteAddress);
  res.writeHead(204, { 'cache-control': 'no-store', ...(believed ? { [PROXY_PROTOCOL_HEADER]: 'v2' } : {}) });
  res.end();
}

/** What http-proxy's `xfwd` added, without trusting more than `forward` does: the caller's address appended; on a piped connection, the gateway's word. */
function forwardedWs(req: http.IncomingMessage, piped: Piped | undefined): Record<string, string> {
  if (piped) return { 'x-forwarded-for': `${piped.client}, ${piped.peer}`, 'x-forwarded-host': req.headers.host ?? '', 'x-forwarded-proto': 'https' };
  const remote = req.socket.remoteAddress ?? '';
  const prior = req.headers['x-forwarded-for'];
  return {
    'x-forwarded-for': prior ? `${String(prior)}, ${remote}` : remote,
    'x-forwarded-host': String(req.headers['x-forwarded-host'] ?? req.headers.host ?? ''),
    'x-forwarded-proto': String(req.headers['x-forwarded-proto'] ?? 'ws'),
  };
}
