import type { Request } from 'express';

/**
 * The address rate limits count against. The gateway appends the address it
 * accepted the connection from to `x-forwarded-for`, so the LAST entry is the
 * one the gateway set; earlier entries come from the caller and could be
 * forged to dodge the limit. Without the header: the socket's address.
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
