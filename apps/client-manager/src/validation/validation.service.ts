import type { ValidateApiKeyResponse } from '@ocg/contracts';
import type { ApiKeyValidator } from './api-key-validator';
import type { RateLimiter } from '@ocg/redis';
import type { RequestContext } from '../shared/request-context';

/** POST /auth/validate-api-key: whose key this is, for other services and the gateway. */
export class ValidationService {
  constructor(
    private readonly validator: ApiKeyValidator,
    /** Validations per client address. */
    private readonly limit: RateLimiter,
  ) {}

  async validateApiKey(apiKey: string, ctx: RequestContext): Promise<ValidateApiKeyResponse> {
    // Services calling with the internal credential validate for many users: not limited per address.
    const [check] = await Promise.all([this.validator.check(apiKey), ctx.internal ? undefined : this.limit.enforce(ctx.client, `validate-api-key requests from ${ctx.client}`)]);
    if (!check.ok) return { valid: false };
    const { user, keyId, scopes, expiresAt } = check.key;
    return { valid: true, user, apiKeyId: keyId, scopes, expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString() };
  }
}
