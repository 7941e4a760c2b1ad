import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A claim in one round trip (JobRepository.claim): the redelivery of an
 * unacknowledged claim, else the node's lock and the SKIP LOCKED pick of the
 * oldest queued job under the node's capacity, as one function. Each
 * statement of a plpgsql function takes its own snapshot, so the pick after
 * the lock sees every claim of the node that committed while it waited, as
 * the separate statements of a transaction did.
 */
export class ClaimFunction1760000006600 implements MigrationInterface {
  name = 'ClaimFunction1760000006600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION claim_job(p_market text, p_node text, p_redeliver_after_seconds integer, p_capacity integer, p_sources text[])
      RETURNS SETOF jobs LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        -- Billing starts when the node gets the job, so a redelivered claim starts its clock again.
        RETURN QUERY
          WITH mine AS (
            SELECT address FROM jobs WHERE market_address = p_market AND node_address = p_node AND status = 'RUNNING' AND acked_at IS NULL
              AND started_at <= now() - make_interval(secs => p_redeliver_after_seconds)
            ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED
          )
          UPDATE jobs j SET started_at = now(), last_seen_at = now(), updated_at = now(), ends_at = now() + make_interval(secs => j.duration_seconds)
          FROM mine WHERE j.address = mine.address AND j.status = 'RUNNING' AND j.acked_at IS NULL
          RETURNING j.*;
        IF FOUND THEN
          RETURN;
        END IF;
        -- One claim of a node at a time: together they never pass its capacity.
        PERFORM pg_advisory_xact_lock(hashtext('ocg:claim:' || p_node));
        RETURN QUERY
          WITH next AS (
            SELECT address FROM jobs WHERE market_address = p_market AND status = 'QUEUED'
              AND (SELECT count(*) FROM jobs WHERE node_address = p_node AND status = 'RUNNING') < p_capacity
            ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED
          )
          UPDATE jobs j SET status = 'RUNNING', node_address = p_node, started_at = now(), last_seen_at = now(), acked_at = NULL, updated_at = now(),
                            ends_at = now() + make_interval(secs => j.duration_seconds)
          FROM next WHERE j.address = next.address AND j.status = ANY(p_sources)
          RETURNING j.*;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION claim_job(text, text, integer, integer, text[])`);
  }
}
