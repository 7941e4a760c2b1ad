import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Market settings for what a job may take (`job_limits`) and how containers
 * run (`container_policy`): only what an operator set is stored, the rest
 * takes the defaults in code. Nodes declare a capacity and can be disabled.
 */
export class JobLimitsAndNodeControl1760100000025 implements MigrationInterface {
  name = 'JobLimitsAndNodeControl1760100000025';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE markets ADD COLUMN job_limits jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await q.query(`ALTER TABLE markets ADD COLUMN container_policy jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await q.query(`ALTER TABLE nodes ADD COLUMN capacity integer NOT NULL DEFAULT 8`);
    await q.query(`ALTER TABLE nodes ADD CONSTRAINT nodes_capacity_check CHECK (capacity >= 1)`);
    await q.query(`ALTER TABLE nodes ADD COLUMN disabled_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes DROP COLUMN disabled_at`);
    await q.query(`ALTER TABLE nodes DROP CONSTRAINT nodes_capacity_check`);
    await q.query(`ALTER TABLE nodes DROP COLUMN capacity`);
    await q.query(`ALTER TABLE markets DROP COLUMN container_policy`);
    await q.query(`ALTER TABLE markets DROP COLUMN job_limits`);
  }
}
