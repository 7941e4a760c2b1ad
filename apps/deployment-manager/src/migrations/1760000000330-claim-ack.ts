import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A claim is provisional until its node acknowledges it (its first report,
 * sync or finish naming the job): `acked_at`. Jobs already running when this
 * runs were heard from before, so they count as acknowledged.
 */
export class ClaimAck1760000000330 implements MigrationInterface {
  name = 'ClaimAck1760000000330';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs ADD COLUMN acked_at timestamptz NULL`);
    await q.query(`UPDATE jobs SET acked_at = COALESCE(last_seen_at, started_at) WHERE started_at IS NOT NULL`);
    await q.query(`CREATE INDEX jobs_unacked_idx ON jobs (started_at) WHERE status = 'RUNNING' AND acked_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX jobs_unacked_idx`);
    await q.query(`ALTER TABLE jobs DROP COLUMN acked_at`);
  }
}
