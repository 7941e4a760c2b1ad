import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Jobs, what nodes report about them, the content-addressed store, credit
 * holds and the idempotency record of job posts. Money lives in
 * client-manager; a job remembers its holds and how far their settlement
 * got, so a crash anywhere between a job's end and its settlement is
 * finished by the sweeper after a restart.
 */
export class Jobs1760000000100 implements MigrationInterface {
  name = 'Jobs1760000000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE blobs (
        cid text PRIMARY KEY,
        bytes bytea NOT NULL,
        size integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Who may read a blob: its uploader, the poster of a job it defines or results.
    await q.query(`
      CREATE TABLE blob_readers (
        cid text NOT NULL REFERENCES blobs(cid) ON DELETE CASCADE,
        user_id text NOT NULL,
        PRIMARY KEY (cid, user_id)
      )`);
    await q.query(`
      CREATE TABLE jobs (
        seq bigserial NOT NULL UNIQUE,
        address text PRIMARY KEY,
        address_lower text NOT NULL UNIQUE,
        user_id text NOT NULL,
        poster_address text NOT NULL,
        market_address text NOT NULL,
        node_address text NULL,
        status text NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'STOPPED')),
        end_reason text NULL,
        definition_cid text NOT NULL REFERENCES blobs(cid),
        definition jsonb NOT NULL,
        exposes boolean NOT NULL,
        result_cid text NULL REFERENCES blobs(cid),
        price_per_second bigint NOT NULL CHECK (price_per_second >= 0),
        duration_seconds integer NOT NULL CHECK (duration_seconds > 0),
        max_duration_seconds integer NOT NULL CHECK (duration_seconds <= max_duration_seconds),
        billed_seconds integer NULL,
        cost bigint NULL,
        settled_at timestamptz NULL,
        settle_attempt_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz NULL,
        ends_at timestamptz NULL,
        finished_at timestamptz NULL,
        last_seen_at timestamptz NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status IN ('QUEUED', 'RUNNING')) = (finished_at IS NULL))
      )`);
    await q.query(`CREATE INDEX jobs_queue_idx ON jobs (market_address, seq) WHERE status = 'QUEUED'`);
    await q.query(`CREATE INDEX jobs_user_idx ON jobs (user_id, seq DESC)`);
    await q.query(`CREATE INDEX jobs_node_idx ON jobs (node_address) WHERE status = 'RUNNING'`);
    await q.query(`CREATE INDEX jobs_ends_idx ON jobs (ends_at) WHERE status = 'RUNNING'`);
    await q.query(`CREATE INDEX jobs_unsettled_idx ON jobs (finished_at) WHERE settled_at IS NULL AND finished_at IS NOT NULL`);
    // No foreign key to jobs: a job's first hold is placed before the job exists (no job without its money).
    await q.query(`
      CREATE TABLE job_holds (
        reference text PRIMARY KEY,
        job_address text NOT NULL,
        seq integer NOT NULL,
        user_id text NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        seconds integer NOT NULL CHECK (seconds > 0),
        state text NOT NULL CHECK (state IN ('placing', 'open', 'closed')),
        applied boolean NOT NULL DEFAULT false,
        hold_id text NULL,
        settle_amount bigint NULL,
        settled bigint NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (job_address, seq)
      )`);
    await q.query(`CREATE INDEX job_holds_loose_idx ON job_holds (updated_at) WHERE state <> 'closed' AND NOT applied`);
    await q.query(`
      CREATE TABLE job_ops (
        job_address text NOT NULL REFERENCES jobs(address) ON DELETE CASCADE,
        op_id text NOT NULL,
        op_index integer NOT NULL,
        grp text NULL,
        status text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', 'stopped')),
        exit_code integer NULL,
        reason text NULL,
        restarts integer NOT NULL DEFAULT 0,
        started_at timestamptz NULL,
        ended_at timestamptz NULL,
        PRIMARY KEY (job_address, op_id)
      )`);
    await q.query(`
      CREATE TABLE job_endpoints (
        job_address text NOT NULL REFERENCES jobs(address) ON DELETE CASCADE,
        op_id text NOT NULL,
        port integer NOT NULL,
        host_label text NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING', 'ONLINE', 'OFFLINE')),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (job_address, op_id, port)
      )`);
    // No foreign key to jobs either: the key is taken before the job exists, so a retry finds the address.
    await q.query(`
      CREATE TABLE job_post_requests (
        user_id text NOT NULL,
        idempotency_key text NOT NULL,
        request_hash text NOT NULL,
        job_address text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, idempotency_key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['job_post_requests', 'job_endpoints', 'job_ops', 'job_holds', 'jobs', 'blob_readers', 'blobs']) await q.query(`DROP TABLE ${table}`);
  }
}
