import type { Request } from 'express';
import { safeEqual } from '@ocg/auth';
import { INTERNAL_TOKEN_HEADER, UnauthorizedError } from '@ocg/http';

/** The service-to-service credential (INTERNAL_TOKEN). The gateway strips x-ocg-internal* headers from outside callers. */
export class InternalCredential {
  constructor(private readonly token: string | undefined) {}

  matches(req: Request): boolean {
    const given = req.headers[INTERNAL_TOKEN_HEADER];
    return this.token !== undefined && typeof given === 'string' && safeEqual(given, this.token);
  }

  require(req: Request): void {
    if (this.token === undefined) throw new UnauthorizedError('Internal routes are closed: INTERNAL_TOKEN is not configured');
    if (!this.matches(req)) throw new UnauthorizedError(`Internal route: a valid ${INTERNAL_TOKEN_HEADER} header is required`);
  }
}
