import { one, type Queryable } from '../db';

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
export class PostRequestRepository {
  constructor(private readonly db: Queryable) {}

  /** The job address an earlier request with this key and hash stands for; undefined when there was none. */
  async earlier(userId: string, key: string, hash: string): Promise<string | undefined> {
    const row = await one<{ job_address: string }>(this.db, `SELECT job_address FROM job_post_requests WHERE user_id = $1 AND idempotency_key = $2 AND request_hash = $3`, [userId, key, hash]);
    return row?.job_address;
  }

  /** Undefined when the key was used with another request hash. */
  async reserve(userId: string, key: string, hash: string, address: string): Promise<PostReservation | undefined> {
    const taken = await one<{ job_address: string }>(
      this.db,
      `INSERT INTO job_post_requests (user_id, idempotency_key, request_hash, job_address) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING job_address`,
      [userId, key, hash, address],
    );
    if (taken) return { address, fresh: true };
    const earlier = await one<{ job_address: string; request_hash: string }>(
      this.db,
      `SELECT job_address, request_hash FROM job_post_requests WHERE user_id = $1 AND idempotency_key = $2`,
      [userId, key],
    );
    if (!earlier) return this.reserve(userId, key, hash, address); // released between our insert and select
    return earlier.request_hash === hash ? { address: earlier.job_address, fresh: false } : undefined;
  }

  /** Forgets keys older than `ttlSeconds`: after that, the same key makes a new job. */
  async expire(ttlSeconds: number): Promise<void> {
    await this.db.query(`DELETE FROM job_post_requests WHERE created_at < now() - make_interval(secs => $1)`, [ttlSeconds]);
  }

  /** Frees the key when the post failed for good (e.g. a short balance), so the same request may be sent again. */
  async release(userId: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM job_post_requests WHERE user_id = $1 AND idempotency_key = $2`, [userId, key]);
  }
}
