import { LRUCache } from 'lru-cache';
import { TooManyRequestsError } from '@ocg/http';
import type { ValidateApiKeyResponse } from '@ocg/contracts';
import type { ApiKeyValidator, KeyCheck } from './api-key-validator';
import type { RateLimiter } from '@ocg/redis';
import type { RequestContext } from '../shared/request-context';
import { systemClock, type Clock } from '../shared/clock';

/** Addresses this instance saw go over the failure limit, remembered until their window ends. */
const BLOCKED_MEMORY = 10_000;

/**
 * POST /auth/validate-api-key: whose key this is, for other services and the gateway.
 *
 * Services validate real keys for every request they serve, thousands a
 * second from one address, so only FAILED validations count against the
 * per-address limit (brute force is guessing, and guesses fail). Once an
 * address is over it, this instance refuses every validation from it,
 * successful or not, until the window ends: a guess that happens to be right
 * is not told apart from the wrong ones.
 */
export class ValidationService {
  /** Address → unix ms until which it is refused. */
  private readonly blocked = new LRUCache<string, number>({ max: BLOCKED_MEMORY });

  constructor(
    private readonly validator: ApiKeyValidator,
    /** Failed validations per client address. */
    private readonly failures: RateLimiter,
    private readonly clock: Clock = systemClock,
  ) {}

  validateApiKey(apiKey: string, ctx: RequestContext): Promise<ValidateApiKeyResponse> {
    // Services calling with the internal credential validate for many users: not limited per address.
    const limited = !ctx.internal;
    try {
      if (limited) this.refuseIfBlocked(ctx.client);
      // A key this instance remembers is answered in one resolved promise, not a chain of them.
      const known = this.validator.fromMemory(apiKey);
      if (known) return Promise.resolve(this.answer(known));
    } catch (err) {
      return Promise.reject(err);
    }
    return this.lookUp(apiKey, ctx.client, limited);
  }

  private async lookUp(apiKey: string, client: string, limited: boolean): Promise<ValidateApiKeyResponse> {
    const check = await this.validator.check(apiKey);
    if (!check.ok && limited) await this.countFailure(client);
    return this.answer(check);
  }

  private answer(check: KeyCheck): ValidateApiKeyResponse {
    if (!check.ok) return { valid: false };
    const { user, keyId, scopes, expiresAt } = check.key;
    return { valid: true, user, apiKeyId: keyId, scopes, expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString() };
  }

  private refuseIfBlocked(client: string): void {
    const until = this.blocked.get(client);
    if (until === undefined) return;
    const seconds = Math.ceil((until - this.clock()) / 1000);
    if (seconds <= 0) {
      this.blocked.delete(client);
      return;
    }
    throw new TooManyRequestsError(`Too many validate-api-key requests from ${client}: too many failed validations; retry in ${seconds} s`, seconds);
  }

  private async countFailure(client: string): Promise<void> {
    try {
      await this.failures.enforce(client, `validate-api-key requests from ${client}`);
    } catch (err) {
      if (err instanceof TooManyRequestsError) this.blocked.set(client, this.clock() + Number(err.headers?.['Retry-After'] ?? 1) * 1000);
      throw err;
    }
  }
}
