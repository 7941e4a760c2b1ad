import pg from 'pg';
import type { ApplyBenchmarkTemplatesRequest } from '@ocg/contracts';
import { APPLY_LOCK } from '../src/benchmarks/benchmark.repository';
import { startHostManager, type Harness } from './harness';
import { template } from './templates';

describe('concurrent benchmark template applies', () => {
  let hm: Harness;
  let markets: string[];

  beforeAll(async () => {
    hm = await startHostManager({ BENCHMARK_APPLY_LOCK_TIMEOUT_MS: 500 });
    markets = (await Promise.all([hm.createMarket(), hm.createMarket()])).map((m) => m.address);
  });
  afterAll(() => hm.close());

  const apply = (body: ApplyBenchmarkTemplatesRequest) => hm.call('POST', '/benchmark-templates/apply', { body: { ...body, dryRun: false } });

  it('lets two identical applies run one after the other: one adds, the other finds it unchanged, nothing is doubled', async () => {
    const body = { templates: Array.from({ length: 20 }, (_, i) => template(`race-${i}`, markets)) };
    const [a, b] = await Promise.all([apply(body), apply(body)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const statuses = [a, b].map((r) => [...new Set(r.body.changes.map((c: { status: string }) => c.status))].join()).sort();
    expect(statuses).toEqual(['added', 'unchanged']);
    const quiet = [a, b].find((r) => r.body.changes[0].status === 'unchanged')!;
    expect(quiet.body.changes.every((c: { reconciliation: { inSync: boolean } }) => c.reconciliation.inSync)).toBe(true);
    const [{ n: thresholds }] = await hm.db.query(`SELECT count(*)::int AS n FROM thresholds WHERE group_name LIKE 'race-%'`);
    const [{ n: links }] = await hm.db.query(`SELECT count(*)::int AS n FROM market_thresholds m JOIN thresholds t ON t.id = m.threshold_id WHERE t.group_name LIKE 'race-%'`);
    expect([thresholds, links]).toEqual([20, 40]);
  });

  it('answers 409 and writes nothing when another apply holds the lock past the timeout', async () => {
    const holder = new pg.Client({ connectionString: (hm.db.options as { url: string }).url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1, $2)', APPLY_LOCK);
      const res = await apply({ templates: [template('blocked', markets)] });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ name: 'ConflictError', code: 'CONFLICT' });
      expect(res.body.message).toMatch(/another benchmark template apply/);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    const [{ n }] = await hm.db.query(`SELECT count(*)::int AS n FROM benchmarks WHERE slug = 'blocked'`);
    expect(n).toBe(0);
    expect((await apply({ templates: [template('blocked', markets)] })).status).toBe(200);
  });

  it('answers a dry run while another apply holds the lock', async () => {
    const holder = new pg.Client({ connectionString: (hm.db.options as { url: string }).url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1, $2)', APPLY_LOCK);
      const res = await hm.call('POST', '/benchmark-templates/apply', { body: { templates: [template('peek', markets)] } });
      expect(res.status).toBe(200);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });
});
