import type { Request } from 'express';
import type { Authenticator } from './authenticator';

/**
 * tsoa's authenticationModule. Each app carries its Authenticator in
 * app.locals (set by buildApp), so several apps can live in one process.
 */
export function expressAuthentication(req: Request, securityName: string, scopes?: string[]): Promise<unknown> {
  return (req.app.locals.authenticator as Authenticator).authenticate(req, securityName, scopes);
}
