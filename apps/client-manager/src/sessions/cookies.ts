import { SESSION_COOKIE } from '@ocg/contracts';

/** The session handle from a raw Cookie header, or undefined. */
export function sessionHandleFrom(cookieHeader: string | undefined): string | undefined {
  for (const pair of (cookieHeader ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = pair.slice(eq + 1).trim();
    return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value;
  }
  return undefined;
}

/** HttpOnly (no script reads it), SameSite=Lax (no cross-site POSTs carry it), Secure over HTTPS. */
export function sessionCookie(handle: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${handle}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure) + '; Expires=Thu, 01 Jan 1970 00:00:00 GMT';
}
