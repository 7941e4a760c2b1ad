import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An op's remote resource fetch as its node last reported it: `activity` while it fetches, `resources` with per-resource progress. */
export class OpResources1760000003600 implements MigrationInterface {
  name = 'OpResources1760000003600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_ops ADD COLUMN activity text NULL, ADD COLUMN resources jsonb NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_ops DROP COLUMN resources, DROP COLUMN activity`);
  }
}
