import type { EntityManager } from 'typeorm';
import { BaseRepository } from '../base.repository';
import { JobExtendRequestEntity } from './job-extend-request.entity';

export interface ExtendRequest {
  job_address: string;
  request_hash: string;
  hold_reference: string | null;
  completed: boolean;
}

/**
 * Idempotency keys of job extensions, per user. The key is taken before any
 * work; the hold reference is recorded with it in the transaction that
 * creates the hold row, and `completed` in the one that applies it, so a
 * retry finds exactly how far the first attempt got.
 */
export class ExtendRequestRepository extends BaseRepository {
  /** The request under this key (taken now if it was free). */
  async reserve(userId: string, key: string, hash: string, job: string): Promise<ExtendRequest> {
    await this.db.manager
      .createQueryBuilder()
      .insert()
      .into(JobExtendRequestEntity)
      .values({ user_id: userId, idempotency_key: key, request_hash: hash, job_address: job })
      .orIgnore()
      .updateEntity(false)
      .execute();
    const row = await this.read(this.db.manager, userId, key, false);
    if (!row) return this.reserve(userId, key, hash, job); // released between our insert and select
    return row;
  }

  /** Locks the request's row for the rest of the transaction. */
  lock(m: EntityManager, userId: string, key: string): Promise<ExtendRequest | undefined> {
    return this.read(m, userId, key, true);
  }

  async setHold(m: EntityManager, userId: string, key: string, reference: string): Promise<void> {
    await m.update(JobExtendRequestEntity, { user_id: userId, idempotency_key: key }, { hold_reference: reference });
  }

  async complete(m: EntityManager, userId: string, key: string): Promise<void> {
    await m.update(JobExtendRequestEntity, { user_id: userId, idempotency_key: key }, { completed: true });
  }

  /** Frees the key after a refusal that will not change (402, 409), so the same request may be sent again. */
  async release(userId: string, key: string): Promise<void> {
    await this.db.manager.delete(JobExtendRequestEntity, { user_id: userId, idempotency_key: key, completed: false });
  }

  async expire(ttlSeconds: number): Promise<void> {
    await this.db.manager.createQueryBuilder().delete().from(JobExtendRequestEntity).where('created_at < now() - make_interval(secs => :ttlSeconds)', { ttlSeconds }).execute();
  }

  private async read(m: EntityManager, userId: string, key: string, forUpdate: boolean): Promise<ExtendRequest | undefined> {
    const found = await m.findOne(JobExtendRequestEntity, {
      select: { job_address: true, request_hash: true, hold_reference: true, completed: true },
      where: { user_id: userId, idempotency_key: key },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    return found ?? undefined;
  }
}
