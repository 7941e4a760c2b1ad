import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { isOauthGrantable, isScope } from '@ocg/contracts';
import { ServiceUnavailableError, UnauthorizedError } from '@ocg/http';

export interface OAuthConfig {
  OAUTH_ISSUER?: string;
  OAUTH_AUDIENCE?: string;
  OAUTH_JWKS_URL?: string;
  OAUTH_JWKS?: string;
}

export interface VerifiedToken {
  userId: string;
  /** Known, OAuth-grantable scopes only: anything else in the claim is ignored. */
  scopes: string[];
}

// Access tokens are signed by the issuer's private key; a symmetric algorithm
// would let anyone holding the (public) JWKS mint tokens.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Verifies RFC 9068 access tokens (JWT, `typ: at+jwt`) from the configured issuer. */
export class AccessTokenVerifier {
  private readonly keys: JWTVerifyGetKey | undefined;

  constructor(private readonly config: OAuthConfig) {
    if (config.OAUTH_JWKS) this.keys = createLocalJWKSet(JSON.parse(config.OAUTH_JWKS));
    else if (config.OAUTH_JWKS_URL) this.keys = createRemoteJWKSet(new URL(config.OAUTH_JWKS_URL), { timeoutDuration: 3000 });
  }

  async verify(token: string): Promise<VerifiedToken> {
    if (!this.keys || !this.config.OAUTH_ISSUER || !this.config.OAUTH_AUDIENCE) throw new UnauthorizedError('OAuth is not configured: use an API key');
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.config.OAUTH_ISSUER,
        audience: this.config.OAUTH_AUDIENCE,
        typ: 'at+jwt',
        algorithms: ALGORITHMS,
        requiredClaims: ['exp', 'sub'],
      });
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter((s) => isScope(s) && isOauthGrantable(s)) : [];
      return { userId: String(payload.sub), scopes: [...new Set(scopes)] };
    } catch (err) {
      throw tokenError(err);
    }
  }
}

function tokenError(err: unknown): Error {
  if (err instanceof errors.JWTExpired) return new UnauthorizedError('The access token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) return new UnauthorizedError(`The access token was refused: ${err.claim} claim is not acceptable`);
  // The issuer's keys unreachable, too slow, or not a 200 with JSON (jose's only generic errors): the token may be fine.
  if (err instanceof errors.JWKSTimeout || isFetchFailure(err) || (err instanceof errors.JOSEError && err.code === 'ERR_JOSE_GENERIC')) {
    return new ServiceUnavailableError('The OAuth issuer keys could not be fetched; try again shortly');
  }
  if (err instanceof errors.JOSEError && err.code === 'ERR_JWKS_INVALID') return new ServiceUnavailableError('The OAuth issuer keys are unusable');
  return new UnauthorizedError('The access token is not valid');
}

/** fetch's "fetch failed" TypeError; by name, since it may come from another realm (undici's, a test VM's). */
function isFetchFailure(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown } | null;
  // Stryker disable next-line ConditionalExpression,LogicalOperator,OptionalChaining: jwtVerify throws no other TypeError, no other error that mentions fetch, and never null
  return e?.name === 'TypeError' && /fetch/i.test(String(e.message));
}
