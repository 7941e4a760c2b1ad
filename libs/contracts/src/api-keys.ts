import type { Scope } from './scopes';

/**
 * A model name in an API key's `llmModels`.
 * @minLength 1
 * @maxLength 128
 */
export type LlmModelName = string;

/**
 * Which LLM models a key may call, checked when inference is reserved. An
 * empty list denies inference entirely. Items are unique.
 * @maxItems 100
 * @uniqueItems
 */
export type LlmModelList = LlmModelName[];

/** `active` keys authenticate; `disabled` keys fail everywhere at once until enabled again. */
export type ApiKeyStatus = 'active' | 'disabled';

export interface CreateApiKeyRequest {
  /**
   * @minLength 1
   * @maxLength 100
   */
  name: string;
  /**
   * Seconds until the key expires. Without it the key never expires.
   * @isInt
   * @minimum 1
   * @maximum 31536000
   */
  expiresIn?: number;
  /**
   * What the key may do: a subset of the calling credential's scopes (403
   * otherwise). Default: all of the caller's scopes. Items are unique.
   * @minItems 1
   * @maxItems 50
   * @uniqueItems
   */
  scopes?: Scope[];
  /** `null` (the default) means no restriction. */
  llmModels?: LlmModelList | null;
}

/** The create response: the key's text, and nothing about its use yet. */
export interface CreateApiKeyResponse {
  llmModels: string[] | null;
  /** The full API key: `Authorization: Bearer <key>`. */
  key: string;
  id: string;
  name: string;
  status: ApiKeyStatus;
  scopes: string[];
  /** ISO 8601; null when the key never expires. */
  expiresAt: string | null;
  /** ISO 8601. */
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  /**
   * The full API key, when the calling credential holds every scope of this
   * key; otherwise masked (`ocg_AbC…xYz9`, see `masked`).
   */
  key: string;
  /** True when `key` is masked: the calling credential lacks some of this key's scopes. */
  masked: boolean;
  status: ApiKeyStatus;
  scopes: string[];
  /** null means no restriction; an empty list denies inference. */
  llmModels: string[] | null;
  /** ISO 8601; refreshed at most once a minute. */
  lastUsedAt: string | null;
  /** ISO 8601; null when the key never expires. */
  expiresAt: string | null;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
}

export interface ListApiKeysResponse {
  keys: ApiKeyRecord[];
  total: number;
}

export interface UpdateApiKeyRequest {
  /**
   * @minLength 1
   * @maxLength 100
   */
  name?: string;
  status?: ApiKeyStatus;
  llmModels?: LlmModelList | null;
}

export interface DeleteApiKeyResponse {
  success: boolean;
}
