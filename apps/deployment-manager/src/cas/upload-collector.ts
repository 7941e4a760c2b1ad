import type { Logger } from '@ocg/http';
import type { BlobRepository } from './blob.repository';

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
    private readonly blobs: BlobRepository,
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
    const uploads = await this.blobs.collectUploads(this.retentionSeconds);
    const blobs = await this.blobs.collectBlobs(this.retentionSeconds);
    if (uploads.length + blobs.length > 0) this.logger.info({ uploads: uploads.length, blobs: blobs.length }, 'collected unused uploads');
    return { uploads: uploads.length, blobs: blobs.length };
  }
}
