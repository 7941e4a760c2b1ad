/**
 * tsoa's `expressAuthentication` for the services. Security names:
 *   bearerAuth     `Authorization: Bearer <API key>`, checked by a KeyValidator, scopes enforced
 *   internal       `x-ocg-internal-token` equal to the configured token (the gateway strips it from outside)
 *   nodeSignature  a request signed by a node key (node-signing.ts)
 * No credential is 401, a missing scope 403, always with the @ocg/http error classes.
 */
import type { Request } from 'express';
import { ForbiddenError, ServiceUnavailableError, UnauthorizedError } from '@ocg/http';
import { SignatureChecksBusyError } from '../wallet';
import { safeEqual } from '../ids';
import type { Identity, KeyValidator } from './identity';
import { describeNodeFailure, verifyNodeRequest } from './node-signing';
import { INTERNAL_TOKEN_HEADER } from './remote-key-validator';

export type ExpressAuthentication = (req: Request, securityName: string, scopes?: string[]) => Promise<Identity>;

export interface ExpressAuthenticationOptions {
  keys: KeyValidator;
  /** Without it, every `internal` route answers 401. */
  internalToken?: string;
  /** How old a node's signed header may be. Default 300 s. */
  nodeSignatureMaxAgeSeconds?: number;
  now?: () => number;
}

export function createExpressAuthentication(opts: ExpressAuthenticationOptions): ExpressAuthentication {
  return async (req, securityName, scopes = []) => {
    switch (securityName) {
      case 'bearerAuth':
        return bearer(opts.keys, req, scopes);
      case 'internal':
        return internal(opts.internalToken, req);
      case 'nodeSignature':
        return node(req, opts);
      default:
        // A route naming a scheme we do not know must never pass; a 500, since it is our bug.
        throw Object.assign(new Error(`unknown security scheme "${securityName}"`), { status: 500 });
    }
  };
}

async function bearer(keys: KeyValidator, req: Request, scopes: string[]): Promise<Identity> {
  const apiKey = bearerToken(req.headers.authorization);
  if (apiKey === undefined) throw unauthorized('Missing credential: send Authorization: Bearer <API key>');
  const key = await keys.validate(apiKey);
  if (key === null) throw unauthorized('The API key is invalid, disabled, expired or deleted');
  const missing = scopes.filter((s) => !key.scopes.includes(s));
  if (missing.length > 0) throw new ForbiddenError(`This operation needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which the API key lacks`);
  return { kind: 'apiKey', userId: key.userId, apiKeyId: key.apiKeyId, scopes: key.scopes, user: key.user };
}

function bearerToken(header: string | undefined): string | undefined {
  // Stryker disable next-line StringLiteral: without a header any text that is no Bearer credential reads alike
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  return match?.[1];
}

function unauthorized(message: string): UnauthorizedError {
  const err = new UnauthorizedError(message);
  err.headers = { 'WWW-Authenticate': 'Bearer' };
  return err;
}

async function internal(token: string | undefined, req: Request): Promise<Identity> {
  const given = req.headers[INTERNAL_TOKEN_HEADER];
  if (typeof given !== 'string' || given === '') throw new UnauthorizedError(`Missing ${INTERNAL_TOKEN_HEADER}: this operation is for services only`);
  if (!token || !safeEqual(given, token)) throw new UnauthorizedError(`Wrong ${INTERNAL_TOKEN_HEADER}`);
  return { kind: 'internal', userId: null, scopes: [] };
}

async function node(req: Request, opts: ExpressAuthenticationOptions): Promise<Identity> {
  const check = await verifyNodeRequest(req.headers, { method: req.method, path: req.originalUrl, body: req.body }, opts.nodeSignatureMaxAgeSeconds, {
    now: opts.now?.(),
  }).catch((err: unknown) => {
    throw busyAsUnavailable(err);
  });
  if (!check.ok) throw new UnauthorizedError(describeNodeFailure(check.reason));
  return { kind: 'node', userId: null, nodeAddress: check.nodeAddress, scopes: [] };
}

/** Too many signatures waiting to be checked (SignatureChecksBusyError) as a 503: the client tries again shortly, its request is not judged. Other errors as they are. */
export function busyAsUnavailable(err: unknown): unknown {
  return err instanceof SignatureChecksBusyError
    ? new ServiceUnavailableError('Too many signed requests are waiting to be checked; try again shortly', undefined, { detail: err.message, retryAfterSeconds: 1 })
    : err;
}

/**
 * tsoa imports `expressAuthentication` from a module at build time, while the
 * real one is built from config in main.ts: the service's module exports
 * `registry.expressAuthentication` and main.ts calls `registry.use(...)`.
 */
export class AuthenticationRegistry {
  private current: ExpressAuthentication | undefined;

  use(authentication: ExpressAuthentication): this {
    this.current = authentication;
    return this;
  }

  readonly expressAuthentication = (req: Request, securityName: string, scopes?: string[]): Promise<Identity> => {
    if (!this.current) return Promise.reject(new Error('authentication is not configured: call registry.use() in the composition root'));
    return this.current(req, securityName, scopes);
  };
}
