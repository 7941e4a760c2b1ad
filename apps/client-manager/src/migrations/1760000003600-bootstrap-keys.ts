import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator's bootstrap key (ADMIN_API_KEY, ADR 0037): marked, so no
 * user's list shows it, and remembered by its lookup hash once deleted, so a
 * restart with the same setting does not bring it back.
 */
export class BootstrapKeys1760000003600 implements MigrationInterface {
  name = 'BootstrapKeys1760000003600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys ADD COLUMN bootstrap boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE api_keys SET bootstrap = true WHERE name = 'bootstrap admin' AND NOT system`);
    await q.query(`
      CREATE TABLE deleted_bootstrap_keys (
        lookup_hash char(64) PRIMARY KEY,
        deleted_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE deleted_bootstrap_keys`);
    await q.query(`ALTER TABLE api_keys DROP COLUMN bootstrap`);
  }
}
