import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * For the gateway's pages: the last lines of each op's output as its node
 * last reported them (a bounded array, 20 lines of at most 500 characters,
 * checked by the report's validation, replaced whole by each report that
 * carries one), and an index for a market's jobs by status.
 */
export class PageData1760000000200 implements MigrationInterface {
  name = 'PageData1760000000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_ops ADD COLUMN log_tail jsonb NULL`);
    await q.query(`CREATE INDEX jobs_market_status_idx ON jobs (market_address, status, seq)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX jobs_market_status_idx`);
    await q.query(`ALTER TABLE job_ops DROP COLUMN log_tail`);
  }
}
