/**
 * Every statement against the benchmark aggregate: `benchmarks`, the
 * `thresholds` grouped by a benchmark's slug and their `market_thresholds`
 * links. Template apply reads the state reconciliation needs and writes what
 * it decided, inside its transaction (`transaction`, then the manager to each
 * method). Reads use TypeORM's repository API; the bulk writes are set-based
 * SQL (one statement per kind of change, all rows in one jsonb parameter),
 * because a first apply of many templates writes thousands of links: one
 * round trip per row would hold the apply lock for seconds, and a VALUES list
 * needs a parameter per field, which Postgres caps at 65,535 per statement.
 */
import { createHash } from 'node:crypto';
import { In, type DataSource, type EntityManager } from 'typeorm';
import type { BenchmarkTemplate, BenchmarkTemplateChange } from '@ocg/contracts';
import { ConflictError } from '@ocg/http';
import { LOCK_NOT_AVAILABLE, pgCode } from '../pg-errors';
import type { StoredState } from '../templates/state';
import { BenchmarkEntity } from './benchmark.entity';
import { toLinkRecord, toThresholdRecord } from './benchmark.records';
import { MarketThresholdEntity } from './market-threshold.entity';
import { ThresholdEntity } from './threshold.entity';

// 'ocg\1': our advisory locks are easy to spot in pg_locks (libs/db uses 'ocg\0' for migrations).
const LOCK_CLASS = 0x6f636701;
export const APPLY_LOCK: [number, number] = [LOCK_CLASS, createHash('sha256').update('host_manager:benchmark-templates:apply').digest().readInt32BE(0)];

export class BenchmarkRepository {
  constructor(private readonly db: DataSource) {}

  /** Runs fn in one transaction; hand its manager to the methods below. */
  transaction<T>(fn: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  list(): Promise<BenchmarkEntity[]> {
    return this.db.getRepository(BenchmarkEntity).find({ order: { slug: 'ASC' } });
  }

  get(slug: string): Promise<BenchmarkEntity | null> {
    return this.db.getRepository(BenchmarkEntity).findOneBy({ slug });
  }

  /** Every threshold and its links, or those of one group (a benchmark slug). */
  async thresholds(group?: string): Promise<{ thresholds: ThresholdEntity[]; links: MarketThresholdEntity[] }> {
    const thresholds = await this.db.getRepository(ThresholdEntity).find({ where: group === undefined ? {} : { group }, order: { id: 'ASC' } });
    const ids = thresholds.map((t) => t.id);
    const links =
      ids.length === 0
        ? []
        : await this.db.getRepository(MarketThresholdEntity).find({
            where: group === undefined ? {} : { thresholdId: In(ids) },
            order: { thresholdId: 'ASC', marketAddress: { direction: 'ASC', nulls: 'FIRST' } },
          });
    return { thresholds, links };
  }

  /** Serializes applies: held until the transaction ends; waits at most timeoutMs, then 409. */
  async lock(manager: EntityManager, timeoutMs: number): Promise<void> {
    // TypeORM has no advisory locks nor transaction-local settings: SQL.
    await manager.query(`SELECT set_config('lock_timeout', $1, true)`, [`${Math.max(1, Math.round(timeoutMs))}ms`]);
    try {
      await manager.query('SELECT pg_advisory_xact_lock($1, $2)', APPLY_LOCK);
    } catch (err) {
      if (pgCode(err) !== LOCK_NOT_AVAILABLE) throw err;
      throw new ConflictError(`another benchmark template apply has been running for ${timeoutMs} ms; try again when it is done`);
    }
    await manager.query(`SELECT set_config('lock_timeout', '0', true)`);
  }

  /** Everything reconciliation compares templates with; outside a transaction by default. */
  async readState(manager: EntityManager = this.db.manager): Promise<StoredState> {
    // One after another: inside a transaction they share one connection.
    const benchmarks = await manager.getRepository(BenchmarkEntity).find({ order: { slug: 'ASC' } });
    const thresholds = await manager.getRepository(ThresholdEntity).find({ order: { id: 'ASC' } });
    const links = await manager.getRepository(MarketThresholdEntity).find({ order: { thresholdId: 'ASC', marketAddress: { direction: 'ASC', nulls: 'FIRST' } } });
    return {
      benchmarks: benchmarks.map(({ slug, operation, requirements, supportedMarkets }) => ({ slug, operation, requirements, supportedMarkets })),
      thresholds: thresholds.map(toThresholdRecord),
      links: links.map(toLinkRecord),
    };
  }

  /** Writes every change; the caller's transaction makes it all or nothing. */
  async write(manager: EntityManager, changes: BenchmarkTemplateChange[], templates: BenchmarkTemplate[]): Promise<void> {
    const bySlug = new Map(templates.map((t) => [t.slug, t]));
    const saved = changes.filter((c) => c.status === 'added' || c.status === 'updated').map((c) => bySlug.get(c.slug));
    await this.saveBenchmarks(
      manager,
      saved.filter((t): t is BenchmarkTemplate => t !== undefined),
    );
    await this.deleteBenchmarks(
      manager,
      changes.filter((c) => c.status === 'removed').map((c) => c.slug),
    );
    const created = await this.createThresholds(
      manager,
      changes.filter((c) => c.reconciliation.needsThreshold),
    );
    await this.upsertLinks(manager, changes, created, bySlug);
    await this.deleteLinks(
      manager,
      changes.flatMap((c) => c.reconciliation.remove),
    );
  }

  private async saveBenchmarks(manager: EntityManager, templates: BenchmarkTemplate[]): Promise<void> {
    if (templates.length === 0) return;
    // A bulk upsert from one jsonb parameter (see the top of the file).
    const rows = templates.map((t) => ({ slug: t.slug, operation: t.operation, requirements: t.requirements, supported_markets: t.supportedMarkets }));
    await manager.query(
      `INSERT INTO benchmarks (slug, operation, requirements, supported_markets)
       SELECT r.slug, r.operation, r.requirements, r.supported_markets
       FROM jsonb_to_recordset($1::jsonb) AS r(slug text, operation jsonb, requirements jsonb, supported_markets jsonb)
       ON CONFLICT (slug) DO UPDATE SET operation = EXCLUDED.operation, requirements = EXCLUDED.requirements,
         supported_markets = EXCLUDED.supported_markets, updated_at = now()`,
      [JSON.stringify(rows)],
    );
  }

  private async deleteBenchmarks(manager: EntityManager, slugs: string[]): Promise<void> {
    if (slugs.length > 0) await manager.createQueryBuilder().delete().from(BenchmarkEntity).where('slug = ANY(:slugs)', { slugs }).execute();
  }

  /** The gating thresholds reconciliation asked for: slug -> new threshold id. */
  private async createThresholds(manager: EntityManager, changes: BenchmarkTemplateChange[]): Promise<Map<string, number>> {
    if (changes.length === 0) return new Map();
    const rows = changes.map((c) => ({ name: `${c.slug}:${c.reconciliation.targetMetricKey}`, metric: c.reconciliation.targetMetricKey, group_name: c.slug }));
    // A bulk insert from one jsonb parameter (see the top of the file), whose RETURNING names each new id's group.
    const created: { id: number; group_name: string }[] = await manager.query(
      `INSERT INTO thresholds (name, metric, group_name, is_gating)
       SELECT r.name, r.metric, r.group_name, true FROM jsonb_to_recordset($1::jsonb) AS r(name text, metric text, group_name text)
       RETURNING id, group_name`,
      [JSON.stringify(rows)],
    );
    return new Map(created.map((r) => [r.group_name, r.id]));
  }

  private async upsertLinks(manager: EntityManager, changes: BenchmarkTemplateChange[], created: Map<string, number>, bySlug: Map<string, BenchmarkTemplate>): Promise<void> {
    const rows = changes.flatMap((c) => {
      const thresholdId = c.reconciliation.targetThresholdId ?? created.get(c.slug);
      const isOptional = bySlug.get(c.slug)?.threshold?.optional ?? false;
      return c.reconciliation.add.map((a) => ({ threshold_id: thresholdId, market_address: a.marketAddress, json_logic: a.jsonLogic, is_optional: isOptional }));
    });
    if (rows.length === 0) return;
    // A bulk upsert from one jsonb parameter (see the top of the file), whose conflict target is the expression index.
    await manager.query(
      `INSERT INTO market_thresholds (threshold_id, market_address, json_logic, is_optional)
       SELECT r.threshold_id, r.market_address, r.json_logic, r.is_optional
       FROM jsonb_to_recordset($1::jsonb) AS r(threshold_id int, market_address text, json_logic jsonb, is_optional boolean)
       ON CONFLICT (threshold_id, (coalesce(market_address, ''))) DO UPDATE SET json_logic = EXCLUDED.json_logic, is_optional = EXCLUDED.is_optional`,
      [JSON.stringify(rows)],
    );
  }

  private async deleteLinks(manager: EntityManager, remove: { thresholdId: number; marketAddress: string }[]): Promise<void> {
    if (remove.length === 0) return;
    // Deleting by (threshold, market) pairs from one jsonb parameter (see the top of the file).
    await manager.query(
      `DELETE FROM market_thresholds m USING jsonb_to_recordset($1::jsonb) AS r(threshold_id int, market_address text)
       WHERE m.threshold_id = r.threshold_id AND m.market_address = r.market_address`,
      [JSON.stringify(remove.map((r) => ({ threshold_id: r.thresholdId, market_address: r.marketAddress })))],
    );
  }
}
