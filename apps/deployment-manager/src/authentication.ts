import type { Request } from 'express';
import type { ExpressAuthentication } from '@ocg/auth';

/**
 * tsoa's authenticationModule. Each app carries its authentication, built
 * from its config, in app.locals (set by buildApp), so two apps in one
 * process never share it (ADR 0063).
 */
export function expressAuthentication(req: Request, securityName: string, scopes?: string[]): ReturnType<ExpressAuthentication> {
  return (req.app.locals.authentication as ExpressAuthentication)(req, securityName, scopes);
}
