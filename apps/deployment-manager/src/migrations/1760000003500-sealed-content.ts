import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Content sealed at rest (ADR 0035): a blob's bytes move to `sealed` (the
 * master key is not available to SQL, so existing rows are sealed by the
 * service at start; until then `bytes` keeps them). Job definitions are
 * sealed in place: jobs.definition holds the sealed text as a JSON string.
 *
 * Upload quotas (ADR 0039): a reader row made by an upload remembers when,
 * and loses the mark once a job of that user holds the content.
 */
export class SealedContent1760000003500 implements MigrationInterface {
  name = 'SealedContent1760000003500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE blobs ADD COLUMN sealed text NULL`);
    await q.query(`ALTER TABLE blobs ALTER COLUMN bytes DROP NOT NULL`);
    await q.query(`ALTER TABLE blobs ADD CONSTRAINT blobs_stored_check CHECK (bytes IS NOT NULL OR sealed IS NOT NULL)`);
    await q.query(`ALTER TABLE blob_readers ADD COLUMN uploaded_at timestamptz NULL`);
    await q.query(`CREATE INDEX blob_readers_uploads_idx ON blob_readers (user_id, uploaded_at) WHERE uploaded_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX blob_readers_uploads_idx`);
    await q.query(`ALTER TABLE blob_readers DROP COLUMN uploaded_at`);
    await q.query(`ALTER TABLE blobs DROP CONSTRAINT blobs_stored_check`);
    await q.query(`ALTER TABLE blobs DROP COLUMN sealed`);
  }
}
