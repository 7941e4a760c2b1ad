import type http from 'node:http';
import type { Logger } from 'pino';
import { relayConnections, rewriteHead, traceIdOf, type Metrics, type RelaySet } from '@ocg/http';
import type { Ingress, RelayedExchange } from '.';

/** Dropped from a relayed answer: what the gateway states itself. */
const dropFromAnswer = (name: string): boolean => name === 'x-request-id' || name === 'traceparent';

export interface IngressRelayOptions {
  ingress: Ingress;
  logger: Logger;
  metrics?: Metrics;
  /** A node ingress silent this long while an answer is awaited or under way is given up on. */
  timeoutMs: number;
  /** The server is HTTPS: connections are taken once TLS is set up. */
  secure: boolean;
}

/**
 * Job hosts' requests relayed to the node's ingress on the connection (ADR
 * 0084): heads rewritten as `forward` rewrites them (the edge's
 * `x-forwarded-*`, the request id, the trace context), bodies and answers
 * streamed as bytes, each answer with the request id and trace context, each
 * request observed and logged as the HTTP server's are. Everything else (API
 * hosts, pages, node hosts, unknown hosts, a node that cannot be reached) is
 * handed to the HTTP server.
 */
export function relayIngress(server: http.Server, opts: IngressRelayOptions): RelaySet {
  const { logger, metrics } = opts;
  return relayConnections<RelayedExchange>(server, opts.secure, {
    route: (head, client) => opts.ingress.relayRoute(head, client),
    answer: (head, raw, x) => rewriteHead(head, raw, dropFromAnswer, `traceparent: ${x.traceparent}\r\nx-request-id: ${x.requestId}\r\n`),
    done: (x, status) => {
      if (!metrics && !logger.isLevelEnabled('info')) return;
      const ms = Number(process.hrtime.bigint() - x.started) / 1e6;
      if (status === 0) return logger.debug({ requestId: x.requestId, method: x.method, path: x.path, ms }, 'relayed request cut off');
      metrics?.requests.observe({ method: x.method, route: 'ingress', status }, ms / 1000);
      if (logger.isLevelEnabled('info'))
        logger.info(
          { requestId: x.requestId, traceId: traceIdOf(x.traceparent), method: x.method, path: x.path, status, ms: Math.round(ms * 100) / 100, relayed: true },
          'request',
        );
    },
    idleMs: server.keepAliveTimeout,
    headMs: server.headersTimeout,
    timeoutMs: opts.timeoutMs,
  });
}
