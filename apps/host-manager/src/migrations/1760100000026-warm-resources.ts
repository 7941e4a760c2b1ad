import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The remote resources a market's nodes keep warm (resource items of a job definition, without credentials). */
export class WarmResources1760100000026 implements MigrationInterface {
  name = 'WarmResources1760100000026';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE markets ADD COLUMN warm_resources jsonb NOT NULL DEFAULT '[]'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE markets DROP COLUMN warm_resources`);
  }
}
