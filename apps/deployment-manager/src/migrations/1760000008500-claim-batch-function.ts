import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The claims of one market that arrive together, in one statement
 * (JobRepository.claim, ADR 0085): `p_nodes` in the order they asked, each
 * with its capacity at the same position of `p_capacities` (a node named
 * twice counts both against its capacity; the service names each once).
 * Each node gets what claim_job would have given it alone: first its oldest
 * claim unacknowledged for longer than the delay, else (under its advisory
 * lock, the locks taken in the nodes' order, so two batches never wait on
 * each other in a cycle) one queued job while it runs fewer than its
 * capacity, the oldest jobs to the first nodes. Each statement of a plpgsql
 * function takes its own snapshot: the capacity counts after the locks see
 * every claim of these nodes that committed while the locks were awaited.
 * claim_job stays for a deployment-manager of the version before.
 */
export class ClaimBatchFunction1760000008500 implements MigrationInterface {
  name = 'ClaimBatchFunction1760000008500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION claim_jobs(p_market text, p_nodes text[], p_capacities integer[], p_redeliver_after_seconds integer, p_sources text[])
      RETURNS SETOF jobs LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        v_job jobs;
        v_served text[] := '{}';
        v_node text;
      BEGIN
        -- Redeliveries, one a node, looked for only when the batch's nodes have an unacknowledged claim older than the delay.
        -- Billing starts when the node gets the job, so a redelivered claim starts its clock again.
        IF EXISTS (SELECT 1 FROM jobs WHERE status = 'RUNNING' AND acked_at IS NULL AND started_at <= now() - make_interval(secs => p_redeliver_after_seconds)
                     AND market_address = p_market AND node_address = ANY(p_nodes)) THEN
          FOR v_job IN
            WITH mine AS (
              SELECT s.address FROM unnest(p_nodes) AS n(node)
              CROSS JOIN LATERAL (
                SELECT address FROM jobs WHERE market_address = p_market AND node_address = n.node AND status = 'RUNNING' AND acked_at IS NULL
                  AND started_at <= now() - make_interval(secs => p_redeliver_after_seconds)
                ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED
              ) s
            )
            UPDATE jobs j SET started_at = now(), last_seen_at = now(), updated_at = now(), ends_at = now() + make_interval(secs => j.duration_seconds)
            FROM mine WHERE j.address = mine.address AND j.status = 'RUNNING' AND j.acked_at IS NULL
            RETURNING j.*
          LOOP
            v_served := v_served || v_job.node_address;
            RETURN NEXT v_job;
          END LOOP;
        END IF;
        -- One claim of a node at a time: together they never pass its capacity.
        FOREACH v_node IN ARRAY ARRAY(SELECT DISTINCT n FROM unnest(p_nodes) AS n WHERE n <> ALL(v_served) ORDER BY n) LOOP
          PERFORM pg_advisory_xact_lock(hashtext('ocg:claim:' || v_node));
        END LOOP;
        RETURN QUERY
          WITH asked AS (
            SELECT n.node, n.capacity, n.turn, row_number() OVER (PARTITION BY n.node ORDER BY n.turn) AS nth
            FROM unnest(p_nodes, p_capacities) WITH ORDINALITY AS n(node, capacity, turn)
            WHERE n.node <> ALL(v_served)
          ), free AS (
            SELECT a.node, row_number() OVER (ORDER BY a.turn) AS turn FROM asked a
            WHERE (SELECT count(*) FROM jobs WHERE node_address = a.node AND status = 'RUNNING') + a.nth <= a.capacity
          ), next AS (
            SELECT q.address, row_number() OVER (ORDER BY q.seq) AS turn FROM (
              SELECT address, seq FROM jobs WHERE market_address = p_market AND status = 'QUEUED'
              ORDER BY seq LIMIT (SELECT count(*) FROM free) FOR UPDATE SKIP LOCKED
            ) q
          )
          UPDATE jobs j SET status = 'RUNNING', node_address = free.node, started_at = now(), last_seen_at = now(), acked_at = NULL, updated_at = now(),
                            ends_at = now() + make_interval(secs => j.duration_seconds)
          FROM next JOIN free ON free.turn = next.turn
          WHERE j.address = next.address AND j.status = ANY(p_sources)
          RETURNING j.*;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION claim_jobs(text, text[], integer[], integer, text[])`);
  }
}
