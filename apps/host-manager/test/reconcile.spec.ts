import type { BenchmarkTemplate, MarketThresholdRecord, ThresholdRecord } from '@ocg/contracts';
import { reconcile } from '../src/templates/reconcile';
import type { StoredBenchmark, StoredState } from '../src/templates/state';

const M1 = 'market-one';
const M2 = 'market-two';
const M3 = 'market-three';
const tps = { key: 'tokens_per_second', type: 'float' };
const watts = { key: 'gpu_wattage_avg', type: 'float' };
const rule = { '>=': [{ var: 'tokens_per_second' }, 20] };

function template(slug: string, extra: Partial<BenchmarkTemplate> = {}): BenchmarkTemplate {
  return {
    slug,
    operation: { name: slug, ops: [{ id: 'bench', type: 'container/run', args: { image: 'bench' } }], metrics: [tps, watts] },
    requirements: [],
    supportedMarkets: [M1, M2],
    threshold: { jsonLogic: rule },
    ...extra,
  };
}

const stored = (t: BenchmarkTemplate): StoredBenchmark => ({ slug: t.slug, operation: t.operation, requirements: t.requirements, supportedMarkets: t.supportedMarkets });
const threshold = (id: number, group: string | null, metric: string | null, isGating = true): ThresholdRecord => ({ id, name: `${group}:${metric}`, metric, group, isGating });
const link = (thresholdId: number, marketAddress: string | null, jsonLogic: Record<string, unknown> = rule, isOptional = false): MarketThresholdRecord => ({
  thresholdId,
  marketAddress,
  jsonLogic,
  isOptional,
});
const state = (benchmarks: BenchmarkTemplate[], thresholds: ThresholdRecord[] = [], links: MarketThresholdRecord[] = []): StoredState => ({
  benchmarks: benchmarks.map(stored),
  thresholds,
  links,
});
/** A template applied before: stored, with its gating threshold (id 1) linked to each market by its rule. */
const synced = (t: BenchmarkTemplate) =>
  state(
    [t],
    [threshold(1, t.slug, 'tokens_per_second')],
    t.supportedMarkets.map((m) => link(1, m)),
  );

describe('reconcile', () => {
  it('marks a new slug added, every metric added, and a threshold needed with a link per market', () => {
    const [change] = reconcile([template('gemma')], state([]), { prune: false });
    expect(change).toMatchObject({ slug: 'gemma', status: 'added', metricChanges: { added: ['tokens_per_second', 'gpu_wattage_avg'], updated: [], removed: [], unchanged: [] } });
    expect(change.reconciliation).toEqual({
      inSync: false,
      actionable: true,
      needsThreshold: true,
      hasGlobalLink: false,
      targetThresholdId: null,
      targetMetricKey: 'tokens_per_second',
      add: [
        { marketAddress: M1, jsonLogic: rule },
        { marketAddress: M2, jsonLogic: rule },
      ],
      remove: [],
      benchmarkMetricKeys: ['tokens_per_second', 'gpu_wattage_avg'],
      defaultMetricKey: 'tokens_per_second',
    });
  });

  it('reports a stored, identical, linked template as unchanged and in sync', () => {
    const t = template('gemma');
    const [change] = reconcile([t], synced(t), { prune: false });
    expect(change.status).toBe('unchanged');
    expect(change.metricChanges.unchanged).toEqual(['tokens_per_second', 'gpu_wattage_avg']);
    expect(change.reconciliation).toMatchObject({ inSync: true, actionable: false, needsThreshold: false, targetThresholdId: 1, add: [], remove: [] });
    expect(change.existingThresholds).toEqual([threshold(1, 'gemma', 'tokens_per_second')]);
    expect(change.existingMarketThresholds).toEqual([link(1, M1), link(1, M2)]);
  });

  it('ignores the order of object members when comparing', () => {
    const t = template('gemma');
    const reordered = { ...t, operation: { metrics: t.operation.metrics.map((m) => ({ type: m.type, key: m.key })), ops: t.operation.ops, name: t.operation.name } };
    expect(reconcile([reordered], synced(t), { prune: false })[0].status).toBe('unchanged');
  });

  it('marks a template with a changed metric updated and names that metric', () => {
    const t = template('gemma');
    const changed = template('gemma', { operation: { ...t.operation, metrics: [{ ...tps, expiry: '5d' }, watts] } });
    const [change] = reconcile([changed], synced(t), { prune: false });
    expect(change.status).toBe('updated');
    expect(change.metricChanges).toEqual({ added: [], updated: ['tokens_per_second'], removed: [], unchanged: ['gpu_wattage_avg'] });
  });

  it('reports metric keys added and removed against the stored benchmark', () => {
    const t = template('gemma');
    const changed = template('gemma', { operation: { ...t.operation, metrics: [tps, { key: 'gpu_temperature_avg' }] } });
    expect(reconcile([changed], synced(t), { prune: false })[0].metricChanges).toEqual({
      added: ['gpu_temperature_avg'],
      updated: [],
      removed: ['gpu_wattage_avg'],
      unchanged: ['tokens_per_second'],
    });
  });

  it('marks a template updated when only its requirements or supported markets change', () => {
    const t = template('gemma');
    expect(reconcile([{ ...t, requirements: [{ vram: 24 }] }], synced(t), { prune: false })[0].status).toBe('updated');
    expect(reconcile([{ ...t, supportedMarkets: [M1] }], synced(t), { prune: false })[0].status).toBe('updated');
  });

  it('adds a link for a market added to supportedMarkets', () => {
    const t = template('gemma');
    const [change] = reconcile([{ ...t, supportedMarkets: [M1, M2, M3] }], synced(t), { prune: false });
    expect(change.reconciliation).toMatchObject({ inSync: false, actionable: true, needsThreshold: false, add: [{ marketAddress: M3, jsonLogic: rule }], remove: [] });
  });

  it('removes the link of a market dropped from supportedMarkets', () => {
    const t = template('gemma');
    const [change] = reconcile([{ ...t, supportedMarkets: [M1] }], synced(t), { prune: false });
    expect(change.reconciliation).toMatchObject({ inSync: false, add: [], remove: [{ thresholdId: 1, marketAddress: M2 }] });
  });

  it('re-adds a link whose rule or optional flag differs from the template', () => {
    const t = template('gemma');
    const s = state([t], [threshold(1, 'gemma', 'tokens_per_second')], [link(1, M1, { '>=': [{ var: 'tokens_per_second' }, 5] }), link(1, M2, rule, true)]);
    expect(reconcile([t], s, { prune: false })[0].reconciliation.add.map((a) => a.marketAddress)).toEqual([M1, M2]);
  });

  it('keeps existing rules and adds the default rule when the template names none', () => {
    const t = template('gemma', { threshold: undefined });
    const s = state([t], [threshold(1, 'gemma', 'tokens_per_second')], [link(1, M1, { '>': [{ var: 'tokens_per_second' }, 1] })]);
    expect(reconcile([t], s, { prune: false })[0].reconciliation.add).toEqual([{ marketAddress: M2, jsonLogic: { '!=': [{ var: 'tokens_per_second' }, null] } }]);
  });

  it('needs no per-market links when the target threshold has a global link', () => {
    const t = template('gemma');
    const [change] = reconcile([t], state([t], [threshold(1, 'gemma', 'tokens_per_second')], [link(1, null)]), { prune: false });
    expect(change.reconciliation).toMatchObject({ hasGlobalLink: true, add: [], remove: [], inSync: true, actionable: false });
  });

  it('still removes per-market links to unsupported markets next to a global link', () => {
    const t = template('gemma', { supportedMarkets: [M1] });
    const s = state([t], [threshold(1, 'gemma', 'tokens_per_second')], [link(1, null), link(1, M2)]);
    expect(reconcile([t], s, { prune: false })[0].reconciliation).toMatchObject({ hasGlobalLink: true, add: [], remove: [{ thresholdId: 1, marketAddress: M2 }] });
  });

  it('flags a missing threshold for the chosen metric even when another metric has one', () => {
    const t = template('gemma', { threshold: { metric: 'gpu_wattage_avg', jsonLogic: { '<': [{ var: 'gpu_wattage_avg' }, 400] } } });
    const [change] = reconcile([t], synced(template('gemma')), { prune: false });
    expect(change.reconciliation).toMatchObject({ targetMetricKey: 'gpu_wattage_avg', defaultMetricKey: 'tokens_per_second', needsThreshold: true, targetThresholdId: null });
  });

  it('does not take a non-gating threshold as the target', () => {
    const t = template('gemma');
    const [change] = reconcile([t], state([t], [threshold(1, 'gemma', 'tokens_per_second', false)]), { prune: false });
    expect(change.reconciliation).toMatchObject({ needsThreshold: true, targetThresholdId: null });
    expect(change.existingThresholds.map((x) => x.id)).toEqual([1]);
  });

  it('names a metric key another benchmark gates under a different definition', () => {
    const other = template('llama', { operation: { name: 'llama', ops: [], metrics: [{ key: 'tokens_per_second', type: 'int' }] } });
    const s = state([other], [threshold(7, 'llama', 'tokens_per_second')], [link(7, M1)]);
    const [change] = reconcile([template('gemma')], s, { prune: false });
    expect(change.conflictKeys).toEqual(['tokens_per_second']);
    expect(change.existingThresholds).toEqual([threshold(7, 'llama', 'tokens_per_second')]);
    expect(change.existingMarketThresholds).toEqual([link(7, M1)]);
  });

  it('sees no conflict when the other benchmark defines the metric the same way', () => {
    const other = template('llama');
    const s = state([other], [threshold(7, 'llama', 'tokens_per_second')]);
    expect(reconcile([template('gemma')], s, { prune: false })[0].conflictKeys).toEqual([]);
  });

  it('sees no conflict in a template changing its own gated metric', () => {
    const t = template('gemma');
    const changed = template('gemma', { operation: { ...t.operation, metrics: [{ ...tps, type: 'int' }, watts] } });
    expect(reconcile([changed], synced(t), { prune: false })[0].conflictKeys).toEqual([]);
  });

  it('sees a conflict when one of several other benchmarks defines the metric differently', () => {
    const same = template('same');
    const other = template('other', { operation: { name: 'other', ops: [], metrics: [{ key: 'tokens_per_second', type: 'int' }] } });
    const s = state([same, other], [threshold(1, 'same', 'tokens_per_second'), threshold(2, 'other', 'tokens_per_second')]);
    expect(reconcile([template('gemma')], s, { prune: false })[0].conflictKeys).toEqual(['tokens_per_second']);
    expect(reconcile([template('same')], s, { prune: false })[0].conflictKeys).toEqual(['tokens_per_second']);
  });

  it('sees no conflict through a non-gating threshold or one whose benchmark is gone', () => {
    const other = template('llama', { operation: { name: 'llama', ops: [], metrics: [{ key: 'tokens_per_second', type: 'int' }] } });
    const s = state([other], [threshold(7, 'llama', 'tokens_per_second', false), threshold(8, 'deleted', 'tokens_per_second')]);
    expect(reconcile([template('gemma')], s, { prune: false })[0].conflictKeys).toEqual([]);
  });

  it('lists the thresholds of its own group on other metrics and those sharing its keys, by id', () => {
    const t = template('gemma');
    const s = state([t], [threshold(3, 'llama', 'tokens_per_second'), threshold(1, 'gemma', 'latency'), threshold(2, 'other', 'unrelated')], [link(3, M1), link(1, null)]);
    const [change] = reconcile([t], s, { prune: false });
    expect(change.existingThresholds.map((x) => x.id)).toEqual([1, 3]);
    expect(change.existingMarketThresholds).toEqual([link(1, null), link(3, M1)]);
  });

  it('leaves stored benchmarks missing from the request alone without prune', () => {
    expect(reconcile([], synced(template('gemma')), { prune: false })).toEqual([]);
  });

  it('removes stored benchmarks missing from the request with prune, after the templates, with every market link of the target', () => {
    const gemma = template('gemma');
    const changes = reconcile([template('alpha', { supportedMarkets: [] })], synced(gemma), { prune: true });
    expect(changes.map((c) => [c.slug, c.status])).toEqual([
      ['alpha', 'added'],
      ['gemma', 'removed'],
    ]);
    expect(changes[1]).toMatchObject({
      operation: null,
      metricChanges: { added: [], updated: [], removed: ['tokens_per_second', 'gpu_wattage_avg'], unchanged: [] },
      supportedMarkets: [M1, M2],
      reconciliation: {
        inSync: false,
        actionable: true,
        needsThreshold: false,
        targetThresholdId: 1,
        add: [],
        remove: [
          { thresholdId: 1, marketAddress: M1 },
          { thresholdId: 1, marketAddress: M2 },
        ],
      },
    });
  });

  it('keeps templates in request order and removals by slug', () => {
    const s = state([template('b'), template('d'), template('c')]);
    const changes = reconcile([template('z'), template('a')], s, { prune: true });
    expect(changes.map((c) => c.slug)).toEqual(['z', 'a', 'b', 'c', 'd']);
  });

  it('has no target, nothing to add and nothing actionable for a template without metrics', () => {
    const t = template('plain', { operation: { name: 'plain', ops: [], metrics: [] }, threshold: undefined });
    expect(reconcile([t], state([]), { prune: false })[0].reconciliation).toEqual({
      inSync: true,
      actionable: false,
      needsThreshold: false,
      hasGlobalLink: false,
      targetThresholdId: null,
      targetMetricKey: null,
      add: [],
      remove: [],
      benchmarkMetricKeys: [],
      defaultMetricKey: null,
    });
  });

  it('gives every change record every field the spec requires', () => {
    const fields = [
      'slug',
      'status',
      'operation',
      'requirements',
      'metricChanges',
      'conflictKeys',
      'supportedMarkets',
      'existingThresholds',
      'existingMarketThresholds',
      'reconciliation',
    ];
    for (const change of reconcile([template('a')], synced(template('g')), { prune: true })) expect(Object.keys(change).sort()).toEqual([...fields].sort());
  });
});
