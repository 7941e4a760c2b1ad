import type { Redis } from 'ioredis';
import type { Logger } from '@ocg/http';
import { redisKeys } from '@ocg/redis';
import type { JobRow } from './job-row';

/**
 * Announces that a job changed on `redisKeys.jobEvents(job)`, so a waiting
 * reader (a CLI following a job) looks again, and on `redisKeys.jobRoutes()`,
 * so every gateway updates the job host's route at once (ADR 0010). Only a
 * wake-up: the message says what changed, and Postgres stays the truth; a
 * lost message costs a poll (the gateway revalidates routes on its own).
 */
export class JobEvents {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  changed(job: Pick<JobRow, 'address' | 'status'> & Partial<Pick<JobRow, 'node_address'>>): void {
    const message = JSON.stringify({ job: job.address, status: job.status });
    const route = JSON.stringify({ job: job.address, status: job.status, node: job.node_address ?? null });
    const failed = (err: Error) => this.logger.debug({ err: err.message }, 'job event not published');
    this.redis.publish(redisKeys.jobEvents(job.address), message).catch(failed);
    this.redis.publish(redisKeys.jobRoutes(), route).catch(failed);
  }
}
