import type { Redis } from 'ioredis';
import type { Logger } from '@ocg/http';
import { redisKeys } from '@ocg/redis';
import type { JobRow } from './job-row';

/**
 * Announces that a job changed on `redisKeys.jobEvents(job)`, so a waiting
 * reader (a CLI following a job) looks again. Only a wake-up: the message
 * says what changed, and Postgres stays the truth; a lost message costs a poll.
 */
export class JobEvents {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  changed(job: Pick<JobRow, 'address' | 'status'>): void {
    const message = JSON.stringify({ job: job.address, status: job.status });
    this.redis.publish(redisKeys.jobEvents(job.address), message).catch((err: Error) => this.logger.debug({ err: err.message }, 'job event not published'));
  }
}
