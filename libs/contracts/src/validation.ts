import type { SessionUserRecord, UserRecord } from './users';

export interface ValidateApiKeyRequest {
  /** @maxLength 512 */
  apiKey: string;
}

export interface ValidateApiKeyResponse {
  /** true only for an existing, active, unexpired key. */
  valid: boolean;
  user?: UserRecord;
  apiKeyId?: string;
  scopes?: string[];
  /** ISO 8601 when the key expires; null when it never does. Caches must not keep the answer past it. */
  expiresAt?: string | null;
}

export interface ValidateSessionRequest {
  /**
   * The raw `Cookie` request header; the session is its `ocg_session` cookie.
   * @maxLength 16384
   */
  cookieHeader: string;
}

export interface SessionRecord {
  handle: string;
  /** ISO 8601. */
  expiresAt: string;
}

export interface ValidateSessionResponse {
  valid: boolean;
  user?: SessionUserRecord;
  session?: SessionRecord;
}

/**
 * Redis channel on which client-manager publishes `{ keyId, hash }` when a key
 * is disabled, updated or deleted, so other caches can drop it at once.
 */
export const API_KEY_INVALIDATED_CHANNEL = 'ocg:auth:apikey-invalidated';

export interface ApiKeyInvalidatedEvent {
  keyId: string;
  /** The key's SHA-256 lookup hash (the cache key). */
  hash: string;
}

/** The session cookie's name. */
export const SESSION_COOKIE = 'ocg_session';
