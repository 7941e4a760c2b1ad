import type { Request } from 'express';
import type { ExpressAuthentication, Identity } from '@ocg/auth';

/**
 * tsoa's authenticationModule. Each app carries its authentication in
 * app.locals (set by buildApp from its settings), so several apps with
 * different settings can live in one process.
 */
export function expressAuthentication(req: Request, securityName: string, scopes?: string[]): Promise<Identity> {
  return (req.app.locals.authentication as ExpressAuthentication)(req, securityName, scopes);
}
