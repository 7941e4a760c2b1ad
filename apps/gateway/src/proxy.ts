import http from 'node:http';
import type { Logger } from 'pino';
import { sendError } from './respond';

/** Headers that describe one connection, never forwarded (RFC 9110 section 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection']);

/** The internal service credential: services trust it, so the edge never lets a caller send it. */
export const INTERNAL_HEADER_PREFIX = 'x-ocg-internal';

export interface Upstream {
  name: string;
  url: URL;
  agent: http.Agent;
}

export function createUpstreams(bases: Record<string, string>, maxSockets: number): Map<string, Upstream> {
  return new Map(
    Object.entries(bases).map(([name, base]) => [
      name,
      { name, url: new URL(base), agent: new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' }) },
    ]),
  );
}

function forwardHeaders(req: http.IncomingMessage, requestId: string, upstream: Upstream): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (!HOP_BY_HOP.has(name) && value !== undefined && !name.startsWith(INTERNAL_HEADER_PREFIX)) headers[name] = value;
  }
  const remote = req.socket.remoteAddress ?? '';
  const prior = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = prior ? `${prior}, ${remote}` : remote;
  headers['x-forwarded-host'] ??= req.headers.host ?? '';
  headers['x-forwarded-proto'] ??= 'encrypted' in req.socket ? 'https' : 'http';
  headers['x-request-id'] = requestId;
  headers.host = upstream.url.host;
  return headers;
}

/**
 * Streams the request to the upstream service and its answer back. A service
 * that is down answers 503, one that stalls past the timeout 504: never a
 * crash or a hang.
 */
export function proxyRequest(req: http.IncomingMessage, res: http.ServerResponse, upstream: Upstream, requestId: string, timeoutMs: number, logger: Logger): void {
  const outgoing = http.request({
    agent: upstream.agent,
    protocol: upstream.url.protocol,
    hostname: upstream.url.hostname,
    port: upstream.url.port,
    method: req.method,
    path: req.url,
    headers: forwardHeaders(req, requestId, upstream),
    timeout: timeoutMs,
  });
  outgoing.on('response', (incoming) => {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    headers['x-request-id'] = requestId;
    res.writeHead(incoming.statusCode ?? 502, headers);
    incoming.pipe(res);
    incoming.on('error', () => res.destroy());
  });
  outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('upstream timed out'), { code: 'UPSTREAM_TIMEOUT' })));
  outgoing.on('error', (err: NodeJS.ErrnoException) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const timedOut = err.code === 'UPSTREAM_TIMEOUT';
    logger.warn({ requestId, service: upstream.name, err: err.message }, timedOut ? 'upstream timed out' : 'upstream unreachable');
    if (timedOut) sendError(res, 504, 'GatewayTimeoutError', 'UPSTREAM_TIMEOUT', `${upstream.name} did not answer within ${timeoutMs} ms`, requestId);
    else sendError(res, 503, 'ServiceUnavailableError', 'SERVICE_UNAVAILABLE', `${upstream.name} is unavailable; try again shortly`, requestId);
  });
  res.on('close', () => {
    if (!res.writableFinished) outgoing.destroy();
  });
  req.pipe(outgoing);
}
