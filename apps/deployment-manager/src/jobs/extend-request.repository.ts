import { one, type Queryable } from '../db';

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
export class ExtendRequestRepository {
  constructor(private readonly db: Queryable) {}

  /** The request under this key (taken now if it was free). */
  async reserve(userId: string, key: string, hash: string, job: string): Promise<ExtendRequest> {
    await this.db.query(
      `INSERT INTO job_extend_requests (user_id, idempotency_key, request_hash, job_address) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [userId, key, hash, job],
    );
    const row = await this.lock(this.db, userId, key, false);
    if (!row) return this.reserve(userId, key, hash, job); // released between our insert and select
    return row;
  }

  lock(q: Queryable, userId: string, key: string, forUpdate = true): Promise<ExtendRequest | undefined> {
    return one<ExtendRequest>(
      q,
      `SELECT job_address, request_hash, hold_reference, completed FROM job_extend_requests WHERE user_id = $1 AND idempotency_key = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [userId, key],
    );
  }

  async setHold(q: Queryable, userId: string, key: string, reference: string): Promise<void> {
    await q.query(`UPDATE job_extend_requests SET hold_reference = $3 WHERE user_id = $1 AND idempotency_key = $2`, [userId, key, reference]);
  }

  async complete(q: Queryable, userId: string, key: string): Promise<void> {
    await q.query(`UPDATE job_extend_requests SET completed = true WHERE user_id = $1 AND idempotency_key = $2`, [userId, key]);
  }

  /** Frees the key after a refusal that will not change (402, 409), so the same request may be sent again. */
  async release(userId: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM job_extend_requests WHERE user_id = $1 AND idempotency_key = $2 AND NOT completed`, [userId, key]);
  }

  async expire(ttlSeconds: number): Promise<void> {
    await this.db.query(`DELETE FROM job_extend_requests WHERE created_at < now() - make_interval(secs => $1)`, [ttlSeconds]);
  }
}
