import { EntitySchema } from 'typeorm';
import type { UserRow } from '../users/user.entity';
import type { ApiKeyStatus } from '@ocg/contracts';

export interface ApiKeyRow {
  id: string;
  userId: string;
  name: string;
  /** The key text sealed with encryptSecret (aad `api-key:<id>`): the spec returns it on get and list. */
  keySealed: string;
  /** SHA-256 of the key text: validation looks up by this and never decrypts. */
  lookupHash: string;
  status: ApiKeyStatus;
  scopes: string[];
  llmModels: string[] | null;
  /** The per-user key that session validation hands to the dashboard. */
  system: boolean;
  /** The operator's ADMIN_API_KEY: in no user's list; once deleted, never made again from the same text. */
  bootstrap: boolean;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const ApiKeyEntity = new EntitySchema<ApiKeyRow & { user?: UserRow }>({
  name: 'ApiKey',
  tableName: 'api_keys',
  columns: {
    id: { type: 'text', primary: true },
    userId: { type: 'text', name: 'user_id' },
    name: { type: 'text' },
    keySealed: { type: 'text', name: 'key_sealed' },
    lookupHash: { type: 'char', length: 64, name: 'lookup_hash', unique: true },
    status: { type: 'text' },
    scopes: { type: 'text', array: true },
    llmModels: { type: 'text', name: 'llm_models', array: true, nullable: true },
    system: { type: 'boolean', default: false },
    bootstrap: { type: 'boolean', default: false },
    expiresAt: { type: 'timestamptz', name: 'expires_at', nullable: true },
    lastUsedAt: { type: 'timestamptz', name: 'last_used_at', nullable: true },
    createdAt: { type: 'timestamptz', name: 'created_at', default: () => 'now()' },
    updatedAt: { type: 'timestamptz', name: 'updated_at', default: () => 'now()' },
  },
  // Declares the foreign key to users; the relation is never loaded.
  relations: {
    user: { type: 'many-to-one', target: 'User', joinColumn: { name: 'user_id', foreignKeyConstraintName: 'api_keys_user_id_fkey' }, onDelete: 'CASCADE' },
  },
  checks: [{ name: 'api_keys_status_check', expression: `status IN ('active', 'disabled')` }],
  indices: [
    { name: 'api_keys_user_id_idx', columns: ['userId', 'createdAt'] },
    { name: 'api_keys_one_system_key', columns: ['userId'], unique: true, where: 'system' },
  ],
});
