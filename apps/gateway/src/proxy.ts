import type http from 'node:http';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { forward, traceForwarded, upstreamPool, type Forwarded } from '@ocg/http';
import { sendError } from './respond';

export interface Upstream {
  name: string;
  url: URL;
  /** Keep-alive connections to the service. */
  dispatcher: Dispatcher;
}

export function createUpstreams(bases: Record<string, string>, maxSockets: number): Map<string, Upstream> {
  return new Map(Object.entries(bases).map(([name, base]) => [name, { name, url: new URL(base), dispatcher: upstreamPool(base, { connections: maxSockets }) }]));
}

/** API bodies up to this size are read whole before they are sent on (`ForwardTarget.wholeBodyLimit`); larger ones stream. */
const WHOLE_BODY_LIMIT = 64 * 1024;

/**
 * Streams the request to the upstream service and its answer back. A service
 * that is down answers 503, one that stalls past the timeout 504: never a
 * crash or a hang.
 */
export function proxyRequest(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  upstream: Upstream,
  requestId: string,
  timeoutMs: number,
  logger: Logger,
  forwarded: Forwarded,
  /** The gateway's trace context for the answer (`ForwardTarget.traceparent`). */
  traceparent?: string,
): void {
  traceForwarded(req, res, upstream.name);
  forward(req, res, { url: upstream.url, dispatcher: upstream.dispatcher, forwarded, traceparent, wholeBodyLimit: WHOLE_BODY_LIMIT }, requestId, timeoutMs, (err, timedOut) => {
    logger.warn({ requestId, service: upstream.name, err: err.message }, timedOut ? 'upstream timed out' : 'upstream unreachable');
    if (timedOut) sendError(res, 504, 'GatewayTimeoutError', 'UPSTREAM_TIMEOUT', `${upstream.name} did not answer within ${timeoutMs} ms`, requestId);
    else sendError(res, 503, 'ServiceUnavailableError', 'SERVICE_UNAVAILABLE', `${upstream.name} is unavailable; try again shortly`, requestId);
  });
}
