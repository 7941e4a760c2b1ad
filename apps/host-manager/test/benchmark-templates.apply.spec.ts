import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchmarkFileToTemplates, type ApplyBenchmarkTemplatesRequest, type BenchmarkTemplateChange } from '@ocg/contracts';
import { startHostManager, type Harness } from './harness';
import { benchOp, rule, template, tps, watts } from './templates';

describe('POST /benchmark-templates/apply', () => {
  let hm: Harness;
  let m1: string;
  let m2: string;
  let m3: string;

  beforeAll(async () => {
    hm = await startHostManager();
    [m1, m2, m3] = (await Promise.all([hm.createMarket(), hm.createMarket(), hm.createMarket()])).map((m) => m.address);
  });
  afterAll(() => hm.close());

  const apply = (body: ApplyBenchmarkTemplatesRequest, key?: string) => hm.call('POST', '/benchmark-templates/apply', { body, key });
  const write = async (body: ApplyBenchmarkTemplatesRequest): Promise<BenchmarkTemplateChange[]> => {
    const res = await apply({ ...body, dryRun: false });
    if (res.status !== 200) throw new Error(`apply failed: ${JSON.stringify(res.body)}`);
    return res.body.changes;
  };
  const count = async (table: string, where = 'true', params: unknown[] = []): Promise<number> =>
    (await hm.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params))[0].n;
  const snapshot = async () => ({
    benchmarks: await hm.db.query('SELECT slug, operation, requirements, supported_markets FROM benchmarks ORDER BY slug'),
    thresholds: await hm.db.query('SELECT * FROM thresholds ORDER BY id'),
    links: await hm.db.query('SELECT threshold_id, market_address, json_logic, is_optional FROM market_thresholds ORDER BY id'),
  });
  const links = (slug: string) =>
    hm.db.query(
      `SELECT m.market_address AS "marketAddress", m.json_logic AS "jsonLogic" FROM market_thresholds m JOIN thresholds t ON t.id = m.threshold_id
       WHERE t.group_name = $1 ORDER BY m.market_address`,
      [slug],
    );

  describe('authorization', () => {
    it('answers 401 without the authorization header', async () => {
      const res = await hm.call('POST', '/benchmark-templates/apply', { key: null, body: { templates: [] } });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ name: 'UnauthorizedError', code: 'UNAUTHENTICATED' });
    });

    it('answers 403 to a key without benchmarks:manage, even one that may manage markets', async () => {
      const { key } = await hm.keyWith(['markets:read', 'markets:manage', 'nodes:manage']);
      const res = await apply({ templates: [] }, key);
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/benchmarks:manage/);
    });

    it('accepts a key holding benchmarks:manage alone', async () => {
      const { key } = await hm.keyWith(['benchmarks:manage']);
      expect(await apply({ templates: [] }, key)).toMatchObject({ status: 200, body: { changes: [], dryRun: true } });
    });
  });

  it('computes changes without writing anything by default', async () => {
    const before = await snapshot();
    const res = await apply({ templates: [template('dry-run', [m1])] });
    expect(res.status).toBe(200);
    expect(res.body.dryRun).toBe(true);
    expect(res.body.changes[0]).toMatchObject({ slug: 'dry-run', status: 'added', reconciliation: { needsThreshold: true, inSync: false } });
    expect(await snapshot()).toEqual(before);
  });

  it('adds a new template with a gating threshold linked to each market, then reports it unchanged and in sync', async () => {
    const body = { templates: [template('new-one', [m1, m2])] };
    const [added] = await write(body);
    expect(added).toMatchObject({
      slug: 'new-one',
      status: 'added',
      metricChanges: { added: ['tokens_per_second', 'gpu_wattage_avg'], updated: [], removed: [], unchanged: [] },
      reconciliation: {
        needsThreshold: true,
        targetThresholdId: null,
        targetMetricKey: 'tokens_per_second',
        actionable: true,
        add: [{ marketAddress: m1 }, { marketAddress: m2 }],
      },
    });
    const thresholds = await hm.db.query(`SELECT id, name, metric, group_name, is_gating FROM thresholds WHERE group_name = 'new-one'`);
    expect(thresholds).toEqual([{ id: expect.any(Number), name: 'new-one:tokens_per_second', metric: 'tokens_per_second', group_name: 'new-one', is_gating: true }]);
    expect(await links('new-one')).toEqual([m1, m2].sort().map((marketAddress) => ({ marketAddress, jsonLogic: rule })));

    const [again] = await write(body);
    expect(again).toMatchObject({
      status: 'unchanged',
      reconciliation: { inSync: true, actionable: false, needsThreshold: false, targetThresholdId: thresholds[0].id, add: [], remove: [] },
    });
    expect(again.existingThresholds).toEqual([{ id: thresholds[0].id, name: 'new-one:tokens_per_second', metric: 'tokens_per_second', group: 'new-one', isGating: true }]);
    expect(again.existingMarketThresholds).toHaveLength(2);
  });

  it('updates a template whose metric changed and names the metric', async () => {
    await write({ templates: [template('metric-change', [m1])] });
    const changed = template('metric-change', [m1], { operation: { name: 'metric-change benchmark', ops: [benchOp], metrics: [{ ...tps, expiry: '1d' }, watts] } });
    const [change] = await write({ templates: [changed] });
    expect(change).toMatchObject({
      status: 'updated',
      metricChanges: { added: [], updated: ['tokens_per_second'], removed: [], unchanged: ['gpu_wattage_avg'] },
      reconciliation: { inSync: true },
    });
    const [stored] = await hm.db.query(`SELECT operation FROM benchmarks WHERE slug = 'metric-change'`);
    expect(stored.operation.metrics[0].expiry).toBe('1d');
  });

  it('links a market added to supportedMarkets and unlinks one removed, as one update', async () => {
    await write({ templates: [template('markets-move', [m1, m2])] });
    const [change] = await write({ templates: [template('markets-move', [m2, m3])] });
    expect(change).toMatchObject({
      status: 'updated',
      reconciliation: { add: [{ marketAddress: m3, jsonLogic: rule }], remove: [{ marketAddress: m1 }], inSync: false, actionable: true },
    });
    expect((await links('markets-move')).map((l: { marketAddress: string }) => l.marketAddress)).toEqual([m2, m3].sort());
    expect((await write({ templates: [template('markets-move', [m2, m3])] }))[0]).toMatchObject({ status: 'unchanged', reconciliation: { inSync: true } });
  });

  it('replaces a link rule the template changed, while the benchmark stays unchanged', async () => {
    await write({ templates: [template('rule-change', [m1])] });
    const stricter = { '>=': [{ var: 'tokens_per_second' }, 40] };
    const [change] = await write({ templates: [template('rule-change', [m1], { threshold: { metric: 'tokens_per_second', jsonLogic: stricter } })] });
    expect(change).toMatchObject({ status: 'unchanged', reconciliation: { inSync: false, add: [{ marketAddress: m1, jsonLogic: stricter }], remove: [] } });
    expect(await links('rule-change')).toEqual([{ marketAddress: m1, jsonLogic: stricter }]);
  });

  it('needs no per-market link when the threshold has a global link', async () => {
    const [created] = await write({ templates: [template('global', [], {})] });
    expect(created.reconciliation).toMatchObject({ needsThreshold: true, add: [] });
    const [{ id }] = await hm.db.query(`SELECT id FROM thresholds WHERE group_name = 'global'`);
    await hm.db.query(`INSERT INTO market_thresholds (threshold_id, market_address, json_logic, is_optional) VALUES ($1, NULL, $2, false)`, [id, JSON.stringify(rule)]);
    const [change] = (await apply({ templates: [template('global', [m1, m2])] })).body.changes;
    expect(change).toMatchObject({ status: 'updated', reconciliation: { hasGlobalLink: true, add: [], remove: [], inSync: true, actionable: false, targetThresholdId: id } });
    expect(change.existingMarketThresholds.filter((l: { thresholdId: number }) => l.thresholdId === id)).toEqual([
      { thresholdId: id, marketAddress: null, jsonLogic: rule, isOptional: false },
    ]);
  });

  it('creates the missing threshold when the template gates on another metric', async () => {
    await write({ templates: [template('switch-metric', [m1])] });
    const byWatts = template('switch-metric', [m1], { threshold: { metric: 'gpu_wattage_avg', jsonLogic: { '<=': [{ var: 'gpu_wattage_avg' }, 450] } } });
    const [change] = await write({ templates: [byWatts] });
    expect(change.reconciliation).toMatchObject({ needsThreshold: true, targetMetricKey: 'gpu_wattage_avg', defaultMetricKey: 'tokens_per_second', targetThresholdId: null });
    expect(await count('thresholds', `group_name = 'switch-metric'`)).toBe(2);
    expect((await write({ templates: [byWatts] }))[0].reconciliation).toMatchObject({ inSync: true, needsThreshold: false });
  });

  it('names a metric key another benchmark already gates under a different definition', async () => {
    await write({ templates: [template('first-owner', [m1])] });
    const other = template('second-owner', [m1], { operation: { name: 'other', ops: [benchOp], metrics: [{ key: 'tokens_per_second', type: 'int' }] } });
    const [change] = (await apply({ templates: [other] })).body.changes;
    expect(change.conflictKeys).toEqual(['tokens_per_second']);
    expect(change.existingThresholds.map((t: { group: string }) => t.group)).toContain('first-owner');
  });

  it('removes stored benchmarks missing from the request only with prune, after the templates, with their market links', async () => {
    await write({ templates: [template('prune-keep', [m1]), template('prune-drop', [m1, m2])] });
    const without = await write({ templates: [template('prune-keep', [m1])] });
    expect(without.map((c) => c.slug)).toEqual(['prune-keep']);
    const all = (await hm.call('GET', '/benchmarks')).body.benchmarks.map((b: { slug: string }) => b.slug);
    const templates = all.filter((s: string) => s !== 'prune-drop').map((s: string) => ({ slug: s }));
    const current = (await Promise.all(templates.map((t: { slug: string }) => hm.call('GET', `/benchmarks/${t.slug}`)))).map((r) => {
      const { slug, operation, requirements, supportedMarkets } = r.body;
      return { slug, operation, requirements, supportedMarkets, threshold: { metric: 'tokens_per_second', jsonLogic: rule } };
    });
    const changes = await write({ templates: current, prune: true });
    const removed = changes.filter((c) => c.status === 'removed');
    expect(removed.map((c) => c.slug)).toEqual(['prune-drop']);
    expect(changes[changes.length - 1].slug).toBe('prune-drop');
    expect(removed[0]).toMatchObject({ operation: null, supportedMarkets: [m1, m2], reconciliation: { add: [], needsThreshold: false, actionable: true } });
    expect(removed[0].reconciliation.remove.map((r) => r.marketAddress).sort()).toEqual([m1, m2].sort());
    expect(await count('benchmarks', `slug = 'prune-drop'`)).toBe(0);
    expect(await links('prune-drop')).toEqual([]);
    const second = await write({ templates: current, prune: true });
    expect(second.every((c) => c.status === 'unchanged' && c.reconciliation.inSync)).toBe(true);
  });

  it('turns the Gemma4 benchmark file into a template that applies and is stable', async () => {
    const file = JSON.parse(readFileSync(join(__dirname, 'fixtures/gemma4-benchmarks.json'), 'utf8'));
    const templates = benchmarkFileToTemplates(file, { name: 'gemma4', supportedMarkets: [m1], source: 'pipeline-templates/Gemma4/benchmarks.json' });
    expect(templates.map((t) => t.slug)).toEqual(['gemma4-26b']);
    const [change] = await write({ templates });
    expect(change).toMatchObject({
      slug: 'gemma4-26b',
      status: 'added',
      requirements: [{ variant: '26b', timeoutSeconds: 2400, opsOverrides: file[0].ops_overrides }],
      reconciliation: { benchmarkMetricKeys: ['tokens_per_second', 'gpu_wattage_avg', 'gpu_temperature_avg'], targetMetricKey: 'tokens_per_second', needsThreshold: true },
    });
    expect(change.reconciliation.add).toEqual([{ marketAddress: m1, jsonLogic: { '!=': [{ var: 'tokens_per_second' }, null] } }]);
    const stored = await hm.call('GET', '/benchmarks/gemma4-26b');
    expect(stored.body).toMatchObject({ slug: 'gemma4-26b', operation: { ops: file[0].support_ops, metrics: file[0].metrics }, supportedMarkets: [m1] });
    expect(stored.body.thresholds).toHaveLength(1);
    expect(stored.body.marketThresholds).toEqual([
      { thresholdId: stored.body.thresholds[0].id, marketAddress: m1, jsonLogic: { '!=': [{ var: 'tokens_per_second' }, null] }, isOptional: false },
    ]);
    expect((await write({ templates }))[0]).toMatchObject({ status: 'unchanged', reconciliation: { inSync: true } });
  });

  it('rejects the whole request with every offending path and writes nothing', async () => {
    const before = await snapshot();
    const res = await apply({
      dryRun: false,
      templates: [
        template('good-one', [m1]),
        template('bad-one', ['NoSuchMarket111111111111111111111111111111111'], {
          operation: { name: 'bad', ops: [{ id: 'a', type: 'container/run', args: { image: 'x', expose: [70000] } }], metrics: [tps] },
          threshold: { metric: 'latency', jsonLogic: rule },
        }),
        template('good-one', [m1]),
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.name).toBe('ValidationError');
    expect(res.body.message).toMatch(/nothing written/);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      '/templates/1/operation/ops/0/args/expose/0',
      '/templates/1/supportedMarkets/0',
      '/templates/1/threshold/metric',
      '/templates/2/slug',
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('rejects a malformed template structure with its path', async () => {
    const res = await apply({ templates: [{ slug: 'Bad Slug', operation: { name: 'x', ops: [], metrics: [{ nokey: 1 }] }, requirements: [], supportedMarkets: [] }] } as never);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { path: '/templates/0/slug', message: 'must match pattern "^[a-z0-9][a-z0-9._-]*$"' },
      { path: '/templates/0/operation/metrics/0/key', message: 'is required' },
    ]);
  });

  it('reads thresholds by group', async () => {
    await write({ templates: [template('read-me', [m2])] });
    const res = await hm.call('GET', '/thresholds?group=read-me', { key: (await hm.keyWith(['markets:read'])).key });
    expect(res.status).toBe(200);
    expect(res.body.thresholds).toEqual([expect.objectContaining({ group: 'read-me', metric: 'tokens_per_second', isGating: true })]);
    expect(res.body.marketThresholds).toEqual([expect.objectContaining({ marketAddress: m2, jsonLogic: rule })]);
    expect((await hm.call('GET', '/benchmarks/nothing-here')).status).toBe(404);
  });
});
