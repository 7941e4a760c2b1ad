import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Users, their API keys and browser sessions. */
export class Identity1760000000000 implements MigrationInterface {
  name = 'Identity1760000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        legacy_user_id text NULL,
        email text NOT NULL,
        name text NULL,
        provider text NOT NULL DEFAULT 'local',
        provider_username text NULL,
        generated_address text NOT NULL UNIQUE,
        wallet_seed_sealed text NOT NULL,
        password_hash text NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Case-insensitive uniqueness: Alice@x and alice@x are one user.
    await q.query(`CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email))`);
    await q.query(`
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name text NOT NULL,
        key_sealed text NOT NULL,
        lookup_hash char(64) NOT NULL UNIQUE,
        status text NOT NULL CHECK (status IN ('active', 'disabled')),
        scopes text[] NOT NULL,
        llm_models text[] NULL,
        system boolean NOT NULL DEFAULT false,
        expires_at timestamptz NULL,
        last_used_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX api_keys_user_id_idx ON api_keys (user_id, created_at)`);
    // At most one system key per user; the flag moves when a disabled one is replaced.
    await q.query(`CREATE UNIQUE INDEX api_keys_one_system_key ON api_keys (user_id) WHERE system`);
    await q.query(`
      CREATE TABLE sessions (
        handle_hash char(64) PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX sessions_user_id_idx ON sessions (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sessions`);
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE users`);
  }
}
