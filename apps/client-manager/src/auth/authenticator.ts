import type { Request } from 'express';
import { isOauthGrantable } from '@ocg/contracts';
import { ForbiddenError, UnauthorizedError } from '@ocg/http';
import type { ApiKeyValidator, KeyFailure } from '../validation/api-key-validator';
import type { AccessTokenVerifier } from './access-tokens';
import type { InternalCredential } from './internal-credential';
import type { Principal } from './principal';

/** Security names used in the controllers. */
export const SECURITY = { bearer: 'bearerAuth', oauth: 'serviceOAuth', internal: 'internal' } as const;

const KEY_FAILURES: Record<KeyFailure, string> = {
  malformed: 'The bearer credential is neither a well-formed API key nor an access token',
  unknown: 'The API key is not valid (unknown or deleted)',
  disabled: 'The API key is disabled',
  expired: 'The API key has expired',
};

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export interface UserLookup {
  exists(userId: string): Promise<boolean>;
}

/**
 * tsoa's authentication hook. A route lists `bearerAuth` and `serviceOAuth`
 * as alternatives and tsoa checks both; the credential itself decides what it
 * is (an `ocg_` API key or a JWT), so both alternatives share one verdict per
 * request and report the same error. Access tokens never satisfy scopes that
 * are not OAuth-grantable.
 */
export class Authenticator {
  private readonly verdicts = new WeakMap<Request, Promise<Principal>>();

  constructor(
    private readonly keys: ApiKeyValidator,
    private readonly tokens: AccessTokenVerifier,
    private readonly users: UserLookup,
    private readonly internal: InternalCredential,
  ) {}

  // Stryker disable next-line ArrayDeclaration: tsoa always passes the route's scope list; the default is for the type
  async authenticate(req: Request, securityName: string, scopes: readonly string[] = []): Promise<Principal | { internal: true }> {
    if (securityName === SECURITY.internal) {
      this.internal.require(req);
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: internal routes never read request.user
      return { internal: true };
    }
    let verdict = this.verdicts.get(req);
    if (!verdict) this.verdicts.set(req, (verdict = this.identify(req.headers.authorization)));
    const principal = await verdict;
    authorize(principal, scopes);
    return principal;
  }

  private async identify(header: string | undefined): Promise<Principal> {
    if (!header) throw new UnauthorizedError('Authentication required: send Authorization: Bearer <API key or OAuth access token>');
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match) throw new UnauthorizedError('Malformed Authorization header: expected "Bearer <credential>"');
    const credential = match[1];
    if (JWT_SHAPE.test(credential)) return this.fromAccessToken(credential);
    const check = await this.keys.check(credential);
    if (!check.ok) throw new UnauthorizedError(KEY_FAILURES[check.reason]);
    // Stryker disable next-line StringLiteral: nothing reads the kind 'api-key'; only 'oauth' is told apart
    return { kind: 'api-key', userId: check.key.userId, scopes: check.key.scopes, keyId: check.key.keyId };
  }

  private async fromAccessToken(token: string): Promise<Principal> {
    const { userId, scopes } = await this.tokens.verify(token);
    if (!(await this.users.exists(userId))) throw new UnauthorizedError('The access token names no known user');
    return { kind: 'oauth', userId, scopes };
  }
}

function authorize(principal: Principal, required: readonly string[]): void {
  for (const scope of required) {
    if (principal.kind === 'oauth' && !isOauthGrantable(scope)) throw new ForbiddenError(`The scope ${scope} is for API keys only: an access token cannot satisfy it`);
    if (!principal.scopes.includes(scope)) throw new ForbiddenError(`The credential lacks the scope ${scope}`);
  }
}
