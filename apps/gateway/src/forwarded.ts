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
  const remote = bare(req.socket.remoteAddress ?? '');
  const own: Forwarded = { for: remote, host: req.headers.host ?? '', proto: 'encrypted' in req.socket ? 'https' : 'http' };
  // Most gateways trust no proxy: a check of an empty list still costs microseconds (an address object per family).
  if (!remote || trusted.rules.length === 0 || !inList(trusted, remote)) return own;
  const forwardedFor = req.headers['x-forwarded-for'];
  // Stryker disable next-line StringLiteral: any text that is no IP address ends the walk below at once, as no text does
  const header = forwardedFor ?? '';
  const chain = (Array.isArray(header) ? header.join(',') : header).split(',').map(bare).filter(Boolean);
  let client = remote;
  // From the right: each hop a trusted proxy names is believed, up to the first that is no trusted proxy.
  for (const hop of chain.reverse()) {
    if (!inList(trusted, client) || !net.isIP(hop)) break;
    client = hop;
  }
  const proto = firstValue(req.headers['x-forwarded-proto'])?.toLowerCase();
  const host = firstValue(req.headers['x-forwarded-host']);
  return {
    for: client,
    host: host && /^[A-Za-z0-9.:[\]-]{1,260}$/.test(host) ? host : own.host,
    proto: proto === 'http' || proto === 'https' ? proto : own.proto,
  };
}
