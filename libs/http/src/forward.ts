import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { TRACEPARENT_HEADER } from './trace-context';

/** Headers that describe one connection, never forwarded (RFC 9110 section 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection']);

/** The internal service credential: services trust it, so a proxy never passes it on from a caller. */
export const INTERNAL_HEADER_PREFIX = 'x-ocg-internal';

export interface ForwardTarget {
  url: URL;
  agent: http.Agent;
  /** Keep the caller's Host (the node's ingress routes by it); otherwise the target's. */
  preserveHost?: boolean;
  /**
   * The `x-forwarded-*` values to send, replacing whatever the caller sent (the
   * edge sets them: see `forwardedOf`). Absent: the caller's are kept and its
   * address is appended to `x-forwarded-for` (a hop behind a trusted edge).
   */
  forwarded?: Forwarded;
}

export interface Forwarded {
  for: string;
  host: string;
  proto: string;
}

/** Client-sent claims about earlier hops, dropped when the edge states its own (`ForwardTarget.forwarded`). */
const FORWARDING_CLAIMS = new Set(['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip']);

function forwardHeaders(req: http.IncomingMessage, requestId: string, target: ForwardTarget): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (HOP_BY_HOP.has(name) || value === undefined || name.startsWith(INTERNAL_HEADER_PREFIX)) continue;
    if (target.forwarded && FORWARDING_CLAIMS.has(name)) continue;
    headers[name] = value;
  }
  if (target.forwarded) {
    headers['x-forwarded-for'] = target.forwarded.for;
    headers['x-forwarded-host'] = target.forwarded.host;
    headers['x-forwarded-proto'] = target.forwarded.proto;
  } else {
    const remote = req.socket.remoteAddress ?? '';
    const prior = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = prior ? `${prior}, ${remote}` : remote;
    headers['x-forwarded-host'] ??= req.headers.host ?? '';
    headers['x-forwarded-proto'] ??= 'encrypted' in req.socket ? 'https' : 'http';
  }
  if (requestId) headers['x-request-id'] = requestId;
  if (!target.preserveHost) headers.host = target.url.host;
  return headers;
}

/** The TLS name to verify for a target: its host name, or none for an IP address (verified against the IP). */
export function tlsServername(url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return net.isIP(host) ? '' : host;
}

/**
 * Streams the request to the target and its answer back over a keep-alive
 * agent; `onFailure` answers when the target cannot be reached or stalls past
 * the timeout (the answer has not started then). Used for the API services
 * and for job hosts alike.
 */
export function forward(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  target: ForwardTarget,
  requestId: string,
  timeoutMs: number,
  onFailure: (err: NodeJS.ErrnoException, timedOut: boolean) => void,
): void {
  // An https target needs https.request (and an https.Agent): http.request throws on the protocol.
  const outgoing = (target.url.protocol === 'https:' ? https : http).request({
    agent: target.agent,
    // The certificate is the target's: without this Node checks it against the (preserved) Host header.
    servername: tlsServername(target.url),
    protocol: target.url.protocol,
    hostname: target.url.hostname.replace(/^\[|\]$/g, ''), // an IPv6 literal without its URL brackets
    port: target.url.port,
    method: req.method,
    path: req.url,
    headers: forwardHeaders(req, requestId, target),
    timeout: timeoutMs,
  });
  outgoing.on('response', (incoming) => {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      // The edge's own trace context (set on `res`) is what its caller gets, not the target's.
      if (!HOP_BY_HOP.has(name) && value !== undefined && !(name === TRACEPARENT_HEADER && res.hasHeader(name))) headers[name] = value;
    }
    if (requestId) headers['x-request-id'] = requestId;
    res.writeHead(incoming.statusCode ?? 502, headers);
    incoming.pipe(res);
    incoming.on('error', () => res.destroy());
  });
  outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('upstream timed out'), { code: 'UPSTREAM_TIMEOUT' })));
  // The caller went away before the answer ended: the upstream request is ended with it, and that is no upstream failure.
  let callerGone = false;
  outgoing.on('error', (err: NodeJS.ErrnoException) => {
    if (callerGone) return;
    if (res.headersSent) res.destroy();
    else onFailure(err, err.code === 'UPSTREAM_TIMEOUT');
  });
  res.on('close', () => {
    if (res.writableFinished) return;
    callerGone = true;
    outgoing.destroy();
  });
  req.pipe(outgoing);
}
