import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys of credit grants, per caller: the request's hash and the
 * answer, written in the grant's own transaction, so a retry answers the
 * same without granting twice.
 */
export class GrantRequests1760000000330 implements MigrationInterface {
  name = 'GrantRequests1760000000330';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE credit_grant_requests (
        caller_id text NOT NULL,
        idempotency_key text NOT NULL,
        request_hash text NOT NULL,
        response jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (caller_id, idempotency_key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE credit_grant_requests`);
  }
}
