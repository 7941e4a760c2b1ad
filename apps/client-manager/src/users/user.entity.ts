import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity({ name: 'users' })
// Unique on lower(email), which TypeORM cannot express: the migration owns it.
@Index('users_email_lower_key', { synchronize: false })
export class UserEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'users_pkey' })
  id!: string;

  @Column({ type: 'text', name: 'legacy_user_id', nullable: true })
  legacyUserId!: string | null;

  @Column({ type: 'text' })
  email!: string;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ type: 'text', default: 'local' })
  provider!: string;

  @Column({ type: 'text', name: 'provider_username', nullable: true })
  providerUsername!: string | null;

  /** Base58 public key of the user's wallet. */
  @Column({ type: 'text', name: 'generated_address', unique: true })
  generatedAddress!: string;

  /** The wallet seed sealed with encryptSecret (aad `wallet:<id>`); never leaves this service. */
  @Column({ type: 'text', name: 'wallet_seed_sealed' })
  walletSeedSealed!: string;

  /** argon2id; null when the user cannot log in with a password. */
  @Column({ type: 'text', name: 'password_hash', nullable: true })
  passwordHash!: string | null;

  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' })
  createdAt!: Date;
}
