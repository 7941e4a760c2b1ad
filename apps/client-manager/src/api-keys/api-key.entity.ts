import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { ApiKeyStatus } from '@ocg/contracts';
import { UserEntity } from '../users/user.entity';

@Entity({ name: 'api_keys' })
@Check('api_keys_status_check', `status IN ('active', 'disabled')`)
@Index('api_keys_user_id_idx', ['userId', 'createdAt'])
// At most one system key per user.
@Index('api_keys_one_system_key', ['userId'], { unique: true, where: 'system' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'api_keys_pkey' })
  id!: string;

  @Column({ type: 'text', name: 'user_id' })
  userId!: string;

  /** Loaded only by validation's lookup (the key and its user in one round trip). */
  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'api_keys_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'text' })
  name!: string;

  /** The key text sealed with encryptSecret (aad `api-key:<id>`): the spec returns it on get and list. */
  @Column({ type: 'text', name: 'key_sealed' })
  keySealed!: string;

  /** SHA-256 of the key text: validation looks up by this and never decrypts. */
  @Column({ type: 'char', length: 64, name: 'lookup_hash', unique: true })
  lookupHash!: string;

  @Column({ type: 'text' })
  status!: ApiKeyStatus;

  @Column({ type: 'text', array: true })
  scopes!: string[];

  @Column({ type: 'text', name: 'llm_models', array: true, nullable: true })
  llmModels!: string[] | null;

  /** The per-user key that session validation hands to the dashboard. */
  @Column({ type: 'boolean', default: false })
  system!: boolean;

  /** The operator's ADMIN_API_KEY: in no user's list; once deleted, never made again from the same text. */
  @Column({ type: 'boolean', default: false })
  bootstrap!: boolean;

  @Column({ type: 'timestamptz', name: 'expires_at', nullable: true })
  expiresAt!: Date | null;

  @Column({ type: 'timestamptz', name: 'last_used_at', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
