import type { CreateApiKeyResponse } from './api-keys';

/** A user as validation answers report it. */
export interface UserRecord {
  /** `usr_…` */
  id: string;
  legacyUserId: string | null;
  email: string;
  name: string | null;
  /** `local` for users created here. */
  provider: string | null;
  providerUsername: string | null;
  /** Base58 ed25519 public key of the user's wallet. */
  generatedAddress: string;
  /** ISO 8601. */
  created_at: string | null;
}

/** The user from session validation: every member is present. */
export interface SessionUserRecord extends UserRecord {
  /** The identity provider's user id; null for local users. */
  sessionProviderUserId: string | null;
  /** A signed auth header `<message>:<signature>:<unix ms>` made with the user's wallet; valid for 300 s. */
  authenticationHeader: string;
  /** The user's system API key, for the dashboard to call the API on the user's behalf. */
  systemApiKey: string;
}

export interface CreateUserRequest {
  /**
   * @minLength 3
   * @maxLength 254
   * @pattern ^[^\s\x40]+\x40[^\s\x40]+$
   */
  email: string;
  /**
   * @minLength 1
   * @maxLength 100
   */
  name: string;
  /**
   * Enables password login (`POST /auth/login`).
   * @minLength 8
   * @maxLength 1024
   */
  password?: string;
}

export interface CreateUserResponse {
  user: UserRecord;
  /** The user's first API key, holding every user scope. */
  apiKey: CreateApiKeyResponse;
}

export interface LoginRequest {
  /**
   * @minLength 1
   * @maxLength 254
   */
  email: string;
  /**
   * @minLength 1
   * @maxLength 1024
   */
  password: string;
}

export interface LoginResponse {
  user: UserRecord;
  /** ISO 8601: when the session cookie stops working. */
  expiresAt: string;
}

export interface LogoutResponse {
  success: boolean;
}
