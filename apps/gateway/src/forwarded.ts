import type http from 'node:http';
import net, { type BlockList } from 'node:net';
import { inList, type Forwarded } from '@ocg/http';

const bare = (address: string): string => address.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

function firstValue(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  return text?.split(',')[0].trim() || undefined;
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
  return forwardedFrom(req.socket.remoteAddress, 'encrypted' in req.socket, (name) => req.headers[name], trusted);
}

/** `forwardedOf` for a request known by its connection's peer, whether it is TLS, and its headers (a relayed request has no IncomingMessage). */
export function forwardedFrom(remoteAddress: string | undefined, encrypted: boolean, header: (name: string) => string | string[] | undefined, trusted: BlockList): Forwarded {
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
