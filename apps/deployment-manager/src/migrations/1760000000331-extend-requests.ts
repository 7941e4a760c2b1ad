import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys of job extensions, per user: the request's hash, the hold
 * reference the extension pays with (so a retry of a request that died
 * halfway finds the same hold), and whether it took effect.
 */
export class ExtendRequests1760000000331 implements MigrationInterface {
  name = 'ExtendRequests1760000000331';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE job_extend_requests (
        user_id text NOT NULL,
        idempotency_key text NOT NULL,
        request_hash text NOT NULL,
        job_address text NOT NULL,
        hold_reference text NULL,
        completed boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, idempotency_key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE job_extend_requests`);
  }
}
