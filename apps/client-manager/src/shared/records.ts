import type { ApiKeyRecord, CreateApiKeyResponse, UserRecord } from '@ocg/contracts';
import type { ApiKeyEntity } from '../api-keys/api-key.entity';
import type { UserEntity } from '../users/user.entity';
import { iso, isoOrNull } from './clock';

/** Only the public members are read: the sealed seed and password hash never leave. */
export function toUserRecord(row: Omit<UserEntity, 'walletSeedSealed' | 'passwordHash'>): UserRecord {
  return {
    id: row.id,
    legacyUserId: row.legacyUserId,
    email: row.email,
    name: row.name,
    provider: row.provider,
    providerUsername: row.providerUsername,
    generatedAddress: row.generatedAddress,
    created_at: iso(row.createdAt),
  };
}

/** Exactly the members the spec lists for the create response, in its order. */
export function toCreateResponse(row: ApiKeyEntity, key: string): CreateApiKeyResponse {
  return {
    llmModels: row.llmModels,
    key,
    id: row.id,
    name: row.name,
    status: row.status,
    scopes: row.scopes,
    expiresAt: isoOrNull(row.expiresAt),
    createdAt: iso(row.createdAt),
  };
}

export function toApiKeyRecord(row: ApiKeyEntity, key: string, masked: boolean): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    key,
    masked,
    status: row.status,
    scopes: row.scopes,
    llmModels: row.llmModels,
    lastUsedAt: isoOrNull(row.lastUsedAt),
    expiresAt: isoOrNull(row.expiresAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** A Postgres unique violation (23505), optionally of one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = e?.code ?? e?.driverError?.code;
  const name = e?.constraint ?? e?.driverError?.constraint;
  return code === '23505' && (constraint === undefined || name === constraint);
}
