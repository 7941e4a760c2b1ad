import http from 'node:http';
import type { Duplex } from 'node:stream';
import httpProxy from 'http-proxy';
import type { Logger } from 'pino';
import type { Executor } from '../executor/executor';
import { parseHost } from './host-rules';
import { forward } from '@ocg/http';
import { rejectUpgrade, sendPage } from './pages';

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
  close(): void;
}

/**
 * Streams requests to containers (no buffering either way) over keep-alive
 * connections; WebSockets are piped after the upgrade. Nothing is proxied
 * until the endpoint passed its startup checks (404 page), nor while a
 * continuous check fails (503 page).
 */
export function createIngress(opts: IngressOptions): Ingress {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 64, scheduling: 'lifo' });
  // Upgraded sockets are invisible to the HTTP server's graceful close: closed here.
  const upgraded = new Set<Duplex>();
  // Plain requests go through `forward` (node:http on the keep-alive agent; ADR 0007): several times
  // faster than http-proxy's web path. Upgraded sockets leave the pool for good, so WebSockets use
  // http-proxy on connections of their own.
  const wsProxy = httpProxy.createProxyServer({ xfwd: true, ws: true });
  const onError = (err: Error, _req: http.IncomingMessage, res: http.ServerResponse | Duplex): void => {
    opts.logger.debug({ err: err.message }, 'proxy error');
    if (res instanceof http.ServerResponse) {
      if (!res.headersSent) sendPage(res, 502);
      else res.destroy();
    } else res.destroy();
  };
  wsProxy.on('error', onError);

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

  return {
    handle: (req, res) => {
      const target = resolve(req);
      if (target.kind === 'node-api') return target.app(req, res);
      if (target.kind === 'proxy') {
        const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : '';
        return forward(req, res, { url: new URL(`http://${target.host}:${target.port}`), agent, preserveHost: true }, requestId, 0, (err) => onError(err, req, res));
      }
      sendPage(res, target.kind === 'unavailable' ? 503 : 404);
    },
    upgrade: (req, socket, head) => {
      const target = resolve(req);
      if (target.kind === 'proxy') {
        upgraded.add(socket);
        socket.once('close', () => upgraded.delete(socket));
        return wsProxy.ws(req, socket, head, { target: `ws://${target.host}:${target.port}` });
      }
      rejectUpgrade(socket, target.kind === 'unavailable' ? 503 : 404);
    },
    close: () => {
      for (const socket of upgraded) socket.destroy();
      wsProxy.close();
      agent.destroy();
    },
  };
}
