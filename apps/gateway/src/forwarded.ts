import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import net, { type BlockList, type Socket } from 'node:net';
import { formatTraceparent, inList, INTERNAL_HEADER_PREFIX, isSaneRequestId, newTraceparent, parseTraceparent, parseTracestate, type Forwarded } from '@ocg/http';

const bare = (address: string): string => address.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

function firstValue(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  return text?.split(',')[0].trim() || undefined;
}

/** The header in which the edge proxy (ADR 0093) names the address its client connected from; internal, so never believed from anyone else. */
export const EDGE_PEER_HEADER = `${INTERNAL_HEADER_PREFIX}-edge-peer`;

/** Connections from the edge proxy: a socket in a directory only the gateway's user can enter (`markEdgeConnection`). */
const edgeConnections = new WeakSet<Socket>();

/** Each request on `socket` comes from the edge proxy, which names its client's peer in EDGE_PEER_HEADER and ended its TLS. */
export function markEdgeConnection(socket: Socket): void {
  edgeConnections.add(socket);
}

/**
 * The peer a request came from and whether it came over TLS: the
 * connection's own, or for the edge proxy's connections (which carry
 * several clients' requests) the client's peer as the edge states it.
 */
function peerOf(socket: Socket, header: (name: string) => string | string[] | undefined): { remote: string | undefined; encrypted: boolean } {
  if (!edgeConnections.has(socket)) return { remote: socket.remoteAddress, encrypted: 'encrypted' in socket };
  const stated = header(EDGE_PEER_HEADER);
  return { remote: typeof stated === 'string' && net.isIP(stated) ? stated : undefined, encrypted: true };
}

/**
 * Who the client is, as the edge states it to every upstream. `X-Forwarded-*`
 * from the connection's peer count only when that peer is a trusted proxy
 * (TRUSTED_PROXIES): then the client is the rightmost `X-Forwarded-For` entry
 * that is not itself a trusted proxy. Anything else a client sends about
 * earlier hops is replaced, so it cannot pick the address rate limits count
 * against, nor the host and scheme a service builds links and cookies from.
 */
export function forwardedOf(req: http.IncomingMessage, trusted: BlockList): Forwarded {
  return forwardedFrom(req.socket, (name) => req.headers[name], trusted);
}

/** `forwardedOf` for a request known by its connection and its headers (a relayed request has no IncomingMessage). */
export function forwardedFrom(socket: Socket, header: (name: string) => string | string[] | undefined, trusted: BlockList): Forwarded {
  const { remote: remoteAddress, encrypted } = peerOf(socket, header);
  const remote = bare(remoteAddress ?? '');
  const own: Forwarded = { for: remote, host: firstOf(header('host')) ?? '', proto: encrypted ? 'https' : 'http' };
  // Most gateways trust no proxy: a check of an empty list still costs microseconds (an address object per family).
  if (!remote || trusted.rules.length === 0 || !inList(trusted, remote)) return own;
  const forwardedFor = header('x-forwarded-for');
  // Stryker disable next-line StringLiteral: any text that is no IP address ends the walk below at once, as no text does
  const text = forwardedFor ?? '';
  const chain = (Array.isArray(text) ? text.join(',') : text).split(',').map(bare).filter(Boolean);
  let client = remote;
  // From the right: each hop a trusted proxy names is believed, up to the first that is no trusted proxy.
  for (const hop of chain.reverse()) {
    if (!inList(trusted, client) || !net.isIP(hop)) break;
    client = hop;
  }
  const proto = firstValue(header('x-forwarded-proto'))?.toLowerCase();
  const host = firstValue(header('x-forwarded-host'));
  return {
    for: client,
    host: host && /^[A-Za-z0-9.:[\]-]{1,260}$/.test(host) ? host : own.host,
    proto: proto === 'http' || proto === 'https' ? proto : own.proto,
  };
}

const firstOf = (header: string | string[] | undefined): string | undefined => (Array.isArray(header) ? header[0] : header);

/** What the edge adds to a relayed request's head: the request id and trace context it stands for, and the header lines. */
export interface EdgeHeaders {
  requestId: string;
  traceparent: string;
  /** `x-forwarded-*`, `x-request-id`, `traceparent` and (with a caller's trace) `tracestate`, each `name: value\r\n`. */
  lines: string;
}

/**
 * The edge's header lines for a request relayed from `client` (ADRs 0084,
 * 0086), as `forward` sets them: who the client is (`forwardedFrom`), the
 * caller's request id when sane (else a new one), the caller's trace
 * continued when well formed (else a new one). `header` reads the head.
 */
export function edgeHeaders(client: Socket, header: (name: string) => string | undefined, trusted: BlockList): EdgeHeaders {
  const forwarded = forwardedFrom(client, header, trusted);
  const sent = header('x-request-id');
  const requestId = isSaneRequestId(sent) ? sent : randomUUID();
  const parent = parseTraceparent(header('traceparent'));
  const traceparent = parent ? formatTraceparent(parent) : newTraceparent();
  const tracestate = parent ? parseTracestate(header('tracestate')) : undefined;
  const lines =
    `x-forwarded-for: ${forwarded.for}\r\nx-forwarded-host: ${forwarded.host}\r\nx-forwarded-proto: ${forwarded.proto}\r\n` +
    `x-request-id: ${requestId}\r\ntraceparent: ${traceparent}\r\n${tracestate ? `tracestate: ${tracestate}\r\n` : ''}`;
  return { requestId, traceparent, lines };
}

/**
 * Relayed connections open to each upstream (a service, a node ingress), so
 * a relay can leave a client connection that would open one more to the
 * HTTP server's bounded pool.
 */
export class OpenConnections {
  private readonly open = new Map<string, number>();

  count(key: string): number {
    return this.open.get(key) ?? 0;
  }

  /** Counts `socket` under `key` until it closes. */
  add(key: string, socket: Socket): void {
    this.open.set(key, this.count(key) + 1);
    socket.once('close', () => {
      const left = this.count(key) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    });
  }
}
