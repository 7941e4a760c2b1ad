import type http from 'node:http';
import type { BlockList, Socket } from 'node:net';
import { inList, readProxyHeader } from '@ocg/http';

/**
 * Connections a gateway opened for one client (ADR 0072): it routed the
 * client's TLS connection by its server name (SNI) and pipes the bytes after
 * the handshake here, behind a PROXY v2 header stating the client's address
 * and that name. The header is believed only from the peers of
 * INGRESS_PROXY_FROM; anyone else's connection goes to the HTTP server
 * unread, where such a header is a malformed request (400).
 */
export interface Piped {
  /** The client's address, as the gateway saw it. */
  client: string;
  /** The server name the client's TLS connection was routed by, lowercased. */
  authority: string;
  /** The gateway's address. */
  peer: string;
}

/** The header of a connection at its start: a peer that sends nothing for this long is cut off. */
const HEADER_TIMEOUT_MS = 10_000;
/** The answer to a probe from a peer of INGRESS_PROXY_FROM: its PROXY v2 headers are believed here. */
export const PROBE_HEADER = 'x-ocg-internal-ingress-probe';
export const PROXY_PROTOCOL_HEADER = 'x-ocg-proxy-protocol';

const pipedSockets = new WeakMap<Socket, Piped>();

const bare = (address: string): string => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/** What the gateway stated about this connection; undefined for any connection opened without a (believed) header. */
export function pipedOf(socket: Socket): Piped | undefined {
  return pipedSockets.get(socket);
}

/** True when `peer` may send PROXY headers here. */
export function proxyPeer(from: BlockList | undefined, peer: string | undefined): boolean {
  return from !== undefined && peer !== undefined && inList(from, peer);
}

/** Host header and SNI name alike: lowercased, without port or trailing dot. */
export function hostName(host: string | undefined): string {
  return (host ?? '').trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
}

/**
 * Reads a PROXY v2 header at the start of connections from `from` before the
 * HTTP server sees them (which then reads what follows it); connections from
 * anyone else go to the server as they are.
 */
export function acceptProxyHeaders(server: http.Server, from: BlockList): void {
  const listeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  const serve = (socket: Socket) => {
    for (const listener of listeners) listener.call(server, socket);
  };
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (!proxyPeer(from, peer)) return serve(socket);
    readProxyHeader(socket, HEADER_TIMEOUT_MS, (header) => {
      if (header) pipedSockets.set(socket, { client: header.client, authority: hostName(header.authority), peer: bare(peer ?? '') });
      serve(socket);
      socket.resume();
    });
  });
}
