import http from 'node:http';
import type { Duplex } from 'node:stream';
import httpProxy from 'http-proxy';
import type { Logger } from 'pino';
import { parseIngressHost } from './host';
import type { IngressResolver, IngressTarget } from './resolver';
import { sendNotFoundPage, sendUnavailablePage } from './pages';
import { forward } from '@ocg/http';

export interface IngressOptions {
  nodeDomain: string;
  resolver: IngressResolver;
  logger: Logger;
  /** A node ingress silent this long is given up on. */
  timeoutMs: number;
}

export interface Ingress {
  /** True when the host is a job or node host, which this ingress serves. */
  matches(host: string | undefined): boolean;
  handle(req: http.IncomingMessage, res: http.ServerResponse, requestId: string): void;
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

/**
 * Job and node hosts: `https://<job>[-<port>|-<opIndex>-<port>].<node domain>`
 * and `<node address>.<node domain>`, proxied (streamed, WebSockets included)
 * to the ingress of the node running the job, with the Host header unchanged
 * so the node picks the op and port from it. A job that is not running, or
 * not known, gets the not-found page; the node answers 404 itself until the
 * endpoint is ready and 503 while a continuous health check fails.
 */
export function createIngress(opts: IngressOptions): Ingress {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, scheduling: 'lifo' });
  // WebSockets only: plain requests go through `forward`, which is several times faster than http-proxy here.
  const proxy = httpProxy.createProxyServer({ agent, xfwd: true, proxyTimeout: opts.timeoutMs, ws: true });
  const targets = new Map<string, URL>();
  const urlOf = (ingressUrl: string): URL => {
    let url = targets.get(ingressUrl);
    if (!url) targets.set(ingressUrl, (url = new URL(ingressUrl)));
    return url;
  };
  const { logger } = opts;

  const targetOf = async (host: string | undefined): Promise<IngressTarget> => {
    const parsed = parseIngressHost(host, opts.nodeDomain);
    return parsed ? opts.resolver.resolve(parsed.address) : { kind: 'unknown' };
  };

  return {
    matches: (host) => parseIngressHost(host, opts.nodeDomain) !== undefined,
    handle(req, res, requestId) {
      req.headers['x-request-id'] = requestId;
      targetOf(req.headers.host).then(
        (target) => {
          if (target.kind === 'job' || target.kind === 'node') {
            forward(req, res, { url: urlOf(target.ingressUrl), agent, preserveHost: true }, requestId, opts.timeoutMs, (err) => {
              logger.warn({ requestId, err: err.message, target: target.ingressUrl }, 'node ingress unreachable');
              sendUnavailablePage(res, 'The node running this job is not answering; try again shortly.', requestId);
            });
          } else if (target.kind === 'not-ready') {
            sendNotFoundPage(res, req.headers.host ?? '', target.status === 'QUEUED' ? 'The job is queued and waits for a node.' : `The job is ${target.status.toLowerCase()}.`, requestId);
          } else {
            sendNotFoundPage(res, req.headers.host ?? '', 'No job or node has this address.', requestId);
          }
        },
        (err: Error) => {
          logger.warn({ requestId, err: err.message }, 'ingress lookup failed');
          sendUnavailablePage(res, 'Job routing is unavailable right now; try again shortly.', requestId);
        },
      );
    },
    upgrade(req, socket, head) {
      targetOf(req.headers.host).then(
        (target) => {
          if (target.kind !== 'job' && target.kind !== 'node') {
            socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
            return;
          }
          proxy.ws(req, socket, head, { target: target.ingressUrl }, () => socket.destroy());
        },
        () => socket.end('HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'),
      );
    },
    close() {
      proxy.close();
      agent.destroy();
    },
  };
}
