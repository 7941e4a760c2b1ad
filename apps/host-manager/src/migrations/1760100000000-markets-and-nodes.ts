import type { MigrationInterface, QueryRunner } from 'typeorm';

export class MarketsAndNodes1760100000000 implements MigrationInterface {
  name = 'MarketsAndNodes1760100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE markets (
        address text NOT NULL,
        name text NOT NULL,
        price_per_second bigint NOT NULL,
        gpu_required boolean NOT NULL,
        default_duration_seconds integer NOT NULL,
        max_duration_seconds integer NOT NULL,
        join_token_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT markets_pkey PRIMARY KEY (address),
        CONSTRAINT markets_price_check CHECK (price_per_second >= 0),
        CONSTRAINT markets_duration_check CHECK (default_duration_seconds > 0 AND default_duration_seconds <= max_duration_seconds)
      )`);
    // Names resolve case-insensitively, so they must be unique that way.
    await q.query(`CREATE UNIQUE INDEX markets_name_lower_key ON markets (lower(name))`);
    await q.query(`
      CREATE TABLE nodes (
        address text NOT NULL,
        market_address text NOT NULL,
        specs jsonb NOT NULL,
        domain text NOT NULL,
        ingress_url text NOT NULL,
        registered_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz,
        CONSTRAINT nodes_pkey PRIMARY KEY (address),
        CONSTRAINT nodes_market_address_fkey FOREIGN KEY (market_address) REFERENCES markets (address) ON DELETE RESTRICT
      )`);
    await q.query(`CREATE INDEX nodes_market_address_idx ON nodes (market_address)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes`);
    await q.query(`DROP TABLE markets`);
  }
}
