import type { Request } from 'express';

/**
 * The address rate limits count against. The gateway replaces
 * `x-forwarded-for` with the one client address it decided (the peer, or
 * through its TRUSTED_PROXIES; ADR 0012), so the LAST entry is the gateway's
 * word; earlier entries, if any, came from elsewhere and could be forged to
 * dodge the limit. Without the header: the socket's address.
 */
export function clientAddressOf(req: Request): string {
  const header = req.headers['x-forwarded-for'];
  const text = Array.isArray(header) ? header[header.length - 1] : header;
  const last = text?.split(',').pop()?.trim();
  return last || req.socket.remoteAddress || 'unknown';
}

/** True when the caller reached the gateway (or us) over HTTPS: cookies then get `Secure`. */
export function cameOverHttps(req: Request): boolean {
  const proto = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
  return req.secure || first === 'https';
}
