/**
 * API key validation for every service but client-manager: ask client-manager
 * (`POST /auth/validate-api-key`) and keep the answer briefly in process.
 * Disabled and deleted keys must fail at once, so cached answers are dropped
 * when client-manager publishes the key id on the invalidation channel, and
 * nothing is cached while that subscription is down (messages sent then are lost).
 */
import type { Redis } from 'ioredis';
import { API_KEY_INVALIDATED_CHANNEL } from '@ocg/contracts';
import { INTERNAL_TOKEN_HEADER, ServiceClient, ServiceUnavailableError } from '@ocg/http';
import { apiKeyLookupHash, isWellFormedApiKey } from '../api-key';
import type { KeyValidator, ValidatedKey } from './identity';
import { KeyCache } from './key-cache';
import { followKeyInvalidations } from './key-invalidations';

/** Defined once, in @ocg/http (its service client sends it); re-exported for the auth hooks. */
export { INTERNAL_TOKEN_HEADER };
/** Where client-manager publishes `{keyId, hash}` of keys whose cached validation must go. */
export const API_KEY_INVALIDATION_CHANNEL = API_KEY_INVALIDATED_CHANNEL;

export interface RemoteKeyValidatorOptions {
  /** Base URL of client-manager, e.g. http://127.0.0.1:8081 */
  clientManagerUrl: string;
  /** A connection to duplicate for the invalidation subscription. Without it, answers live out their TTL. */
  redis?: Redis;
  /** How long an active key's answer is reused. Default 10 s. */
  cacheTtlMs?: number;
  /** How long a "not valid" answer is reused (bounds lookups of garbage keys). Default 2 s. */
  negativeCacheTtlMs?: number;
  maxEntries?: number;
  /** Sent as x-ocg-internal-token, so client-manager can tell a service from the public. */
  internalToken?: string;
  invalidationChannel?: string;
  requestTimeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
}

export interface RemoteKeyValidator extends KeyValidator {
  /** Resolves once the invalidation subscription is live (immediately without redis). */
  ready(): Promise<void>;
  close(): Promise<void>;
  /** For tests and metrics. */
  readonly cache: KeyCache;
}

export function remoteKeyValidator(opts: RemoteKeyValidatorOptions): RemoteKeyValidator {
  const cache = new KeyCache(opts.cacheTtlMs ?? 10_000, opts.negativeCacheTtlMs ?? 2_000, opts.maxEntries ?? 10_000, opts.now ?? Date.now);
  const subscription = opts.redis ? followKeyInvalidations(opts.redis, opts.invalidationChannel ?? API_KEY_INVALIDATION_CHANNEL, cache) : undefined;
  const inFlight = new Map<string, Promise<ValidatedKey | null>>();
  const ask = askClientManager(opts);

  const lookup = (apiKey: string, hash: string): Promise<ValidatedKey | null> => {
    const generation = cache.generation;
    const pending = ask(apiKey).then((result) => {
      if (subscription === undefined || subscription.live) cache.set(hash, result, generation);
      return result;
    });
    // Concurrent requests with one key share one call to client-manager.
    inFlight.set(hash, pending);
    void pending.finally(() => inFlight.get(hash) === pending && inFlight.delete(hash)).catch(() => undefined);
    return pending;
  };

  return {
    cache,
    async validate(apiKey) {
      if (!isWellFormedApiKey(apiKey)) return null; // the checksum rejects garbage without a lookup
      const hash = apiKeyLookupHash(apiKey);
      const cached = cache.get(hash);
      if (cached !== undefined) return cached;
      return inFlight.get(hash) ?? lookup(apiKey, hash);
    },
    ready: async () => subscription?.ready,
    close: async () => subscription?.close(),
  };
}

function askClientManager(opts: RemoteKeyValidatorOptions): (apiKey: string) => Promise<ValidatedKey | null> {
  const service = new ServiceClient({
    service: 'client-manager',
    baseUrl: opts.clientManagerUrl,
    internalToken: opts.internalToken,
    timeoutMs: opts.requestTimeoutMs ?? 5000,
    fetch: opts.fetch,
  });
  return async (apiKey) => {
    // A POST, tried once: the request waiting on it has its own deadline.
    const res = await service.request({ method: 'POST', path: '/auth/validate-api-key', body: { apiKey } }).catch((err: Error) => {
      throw unavailable((err as { internalDetail?: string }).internalDetail?.replace(/^client-manager: /, '') ?? err.message);
    });
    if (res.status >= 500 || res.status === 429) throw unavailable(`status ${res.status}`);
    if (!res.ok) return null; // client-manager refused the key itself (e.g. 400 for a malformed one)
    return toValidatedKey(res.body);
  };
}

function unavailable(detail: string): ServiceUnavailableError {
  return new ServiceUnavailableError('API keys cannot be checked right now; try again shortly', undefined, { detail: `client-manager gave ${detail}` });
}

/** The spec's validation answer to our shape; anything incomplete counts as not valid. */
export function toValidatedKey(body: unknown): ValidatedKey | null {
  const b = body as { valid?: unknown; user?: { id?: unknown }; apiKeyId?: unknown; scopes?: unknown; expiresAt?: unknown } | undefined;
  if (!b || b.valid !== true || typeof b.apiKeyId !== 'string' || typeof b.user?.id !== 'string' || !Array.isArray(b.scopes)) return null;
  const scopes = b.scopes.filter((s): s is string => typeof s === 'string');
  const key: ValidatedKey = { apiKeyId: b.apiKeyId, userId: b.user.id, scopes, user: b.user as ValidatedKey['user'] };
  const expiresAt = typeof b.expiresAt === 'string' ? Date.parse(b.expiresAt) : NaN;
  return Number.isFinite(expiresAt) ? { ...key, expiresAt } : key;
}
