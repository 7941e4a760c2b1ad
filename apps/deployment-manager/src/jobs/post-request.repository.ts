import { BaseRepository } from '../base.repository';
import { JobPostRequestEntity } from './job-post-request.entity';

export interface PostReservation {
  /** The job address this key stands for. */
  address: string;
  /** False when the key was reserved by an earlier request (a retry). */
  fresh: boolean;
}

/**
 * Idempotency keys of job posts, per user. The key is taken before any work,
 * with the job address it stands for, so a retry (even of a request that
 * died halfway) reuses the address, and with it the job and its hold.
 */
export class PostRequestRepository extends BaseRepository {
  /** The job address an earlier request with this key and hash stands for; undefined when there was none. */
  async earlier(userId: string, key: string, hash: string): Promise<string | undefined> {
    const row = await this.db.manager.findOne(JobPostRequestEntity, { select: { job_address: true }, where: { user_id: userId, idempotency_key: key, request_hash: hash } });
    return row?.job_address;
  }

  /** Undefined when the key was used with another request hash. */
  async reserve(userId: string, key: string, hash: string, address: string): Promise<PostReservation | undefined> {
    const taken = await this.db.manager
      .createQueryBuilder()
      .insert()
      .into(JobPostRequestEntity)
      .values({ user_id: userId, idempotency_key: key, request_hash: hash, job_address: address })
      .orIgnore()
      .returning('job_address')
      .updateEntity(false)
      .execute();
    if ((taken.raw as unknown[]).length > 0) return { address, fresh: true };
    const earlier = await this.db.manager.findOne(JobPostRequestEntity, { select: { job_address: true, request_hash: true }, where: { user_id: userId, idempotency_key: key } });
    if (!earlier) return this.reserve(userId, key, hash, address); // released between our insert and select
    return earlier.request_hash === hash ? { address: earlier.job_address, fresh: false } : undefined;
  }

  /** Forgets keys older than `ttlSeconds`: after that, the same key makes a new job. */
  async expire(ttlSeconds: number): Promise<void> {
    await this.db.manager.createQueryBuilder().delete().from(JobPostRequestEntity).where('created_at < now() - make_interval(secs => :ttlSeconds)', { ttlSeconds }).execute();
  }

  /** Frees the key when the post failed for good (e.g. a short balance), so the same request may be sent again. */
  async release(userId: string, key: string): Promise<void> {
    await this.db.manager.delete(JobPostRequestEntity, { user_id: userId, idempotency_key: key });
  }
}
