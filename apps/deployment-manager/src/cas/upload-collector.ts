import type { Logger } from '@ocg/http';
import { rows, type Queryable } from '../db';

/**
 * Collects uploads no job took up within the retention period: the
 * uploader's reader row goes (unless a job of theirs holds the content),
 * then every blob that no reader and no job refers to. Safe to run on every
 * instance at once: each statement stands alone.
 */
export class UploadCollector {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Queryable,
    private readonly retentionSeconds: number,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.collect().catch((err: Error) => this.logger.warn({ err: err.message }, 'upload collection failed; retried at the next interval'));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async collect(): Promise<{ uploads: number; blobs: number }> {
    const uploads = await rows(
      this.db,
      `DELETE FROM blob_readers r
       WHERE r.uploaded_at < now() - make_interval(secs => $1)
         AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.user_id = r.user_id AND (j.definition_cid = r.cid OR j.result_cid = r.cid))
       RETURNING r.cid`,
      [this.retentionSeconds],
    );
    const blobs = await rows(
      this.db,
      `DELETE FROM blobs b
       WHERE NOT EXISTS (SELECT 1 FROM blob_readers r WHERE r.cid = b.cid)
         AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.definition_cid = b.cid OR j.result_cid = b.cid)
         AND b.created_at < now() - make_interval(secs => $1)
       RETURNING b.cid`,
      [this.retentionSeconds],
    );
    if (uploads.length + blobs.length > 0) this.logger.info({ uploads: uploads.length, blobs: blobs.length }, 'collected unused uploads');
    return { uploads: uploads.length, blobs: blobs.length };
  }
}
