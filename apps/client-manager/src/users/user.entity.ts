import { EntitySchema } from 'typeorm';

export interface UserRow {
  id: string;
  legacyUserId: string | null;
  email: string;
  name: string | null;
  provider: string;
  providerUsername: string | null;
  /** Base58 public key of the user's wallet. */
  generatedAddress: string;
  /** The wallet seed sealed with encryptSecret (aad `wallet:<id>`); never leaves this service. */
  walletSeedSealed: string;
  /** argon2id; null when the user cannot log in with a password. */
  passwordHash: string | null;
  createdAt: Date;
}

export const UserEntity = new EntitySchema<UserRow>({
  name: 'User',
  tableName: 'users',
  columns: {
    id: { type: 'text', primary: true },
    legacyUserId: { type: 'text', name: 'legacy_user_id', nullable: true },
    email: { type: 'text' },
    name: { type: 'text', nullable: true },
    provider: { type: 'text', default: 'local' },
    providerUsername: { type: 'text', name: 'provider_username', nullable: true },
    generatedAddress: { type: 'text', name: 'generated_address', unique: true },
    walletSeedSealed: { type: 'text', name: 'wallet_seed_sealed' },
    passwordHash: { type: 'text', name: 'password_hash', nullable: true },
    createdAt: { type: 'timestamptz', name: 'created_at', default: () => 'now()' },
  },
  // lower(email) is an expression index: the migration owns it, TypeORM leaves it alone.
  indices: [{ name: 'users_email_lower_key', synchronize: false, columns: [] }],
});
