import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Benchmarks1760100000001 implements MigrationInterface {
  name = 'Benchmarks1760100000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE benchmarks (
        slug text NOT NULL,
        operation jsonb NOT NULL,
        requirements jsonb NOT NULL,
        supported_markets jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT benchmarks_pkey PRIMARY KEY (slug)
      )`);
    await q.query(`
      CREATE TABLE thresholds (
        id SERIAL NOT NULL,
        name text NOT NULL,
        metric text,
        group_name text,
        is_gating boolean NOT NULL,
        CONSTRAINT thresholds_pkey PRIMARY KEY (id)
      )`);
    await q.query(`CREATE INDEX thresholds_metric_idx ON thresholds (metric)`);
    await q.query(`CREATE INDEX thresholds_group_idx ON thresholds (group_name)`);
    await q.query(`
      CREATE TABLE market_thresholds (
        id SERIAL NOT NULL,
        threshold_id integer NOT NULL,
        market_address text,
        json_logic jsonb NOT NULL,
        is_optional boolean NOT NULL,
        CONSTRAINT market_thresholds_pkey PRIMARY KEY (id),
        CONSTRAINT market_thresholds_threshold_id_fkey FOREIGN KEY (threshold_id) REFERENCES thresholds (id) ON DELETE CASCADE,
        CONSTRAINT market_thresholds_market_address_fkey FOREIGN KEY (market_address) REFERENCES markets (address) ON DELETE RESTRICT
      )`);
    // One link per threshold and market; the global link (NULL market) counts as one market.
    await q.query(`CREATE UNIQUE INDEX market_thresholds_link_key ON market_thresholds (threshold_id, (coalesce(market_address, '')))`);
    await q.query(`CREATE INDEX market_thresholds_market_address_idx ON market_thresholds (market_address)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE market_thresholds`);
    await q.query(`DROP TABLE thresholds`);
    await q.query(`DROP TABLE benchmarks`);
  }
}
