/**
 * The diff behind `POST /benchmark-templates/apply`: templates against the
 * stored state, one change record per slug (BENCHMARK-TEMPLATES.md). Pure:
 * no I/O, same input, same output; the store applies what it returns.
 */
import type { BenchmarkTemplate, BenchmarkTemplateChange, BenchmarkReconciliation, MarketThresholdRecord, MetricChanges, ThresholdRecord } from '@ocg/contracts';
import { canonicalJson } from '@ocg/auth';
import { defaultRule } from './json-logic';
import type { StoredBenchmark, StoredState } from './state';
import { indexState, type StateIndex } from './state-index';

/** A link to one market (not the global link). */
type MarketLink = MarketThresholdRecord & { marketAddress: string };
const isMarketLink = (l: MarketThresholdRecord): l is MarketLink => l.marketAddress !== null;

/** The rule a template asks of its links; undefined: the template names none, so existing rules stand. */
interface LinkRule {
  jsonLogic: Record<string, unknown>;
  isOptional: boolean;
}

export function reconcile(templates: BenchmarkTemplate[], state: StoredState, opts: { prune: boolean }): BenchmarkTemplateChange[] {
  const index = indexState(state);
  const changes = templates.map((template) => templateChange(template, index));
  if (!opts.prune) return changes;
  const kept = new Set(templates.map((t) => t.slug));
  const removed = state.benchmarks.filter((b) => !kept.has(b.slug)).sort((a, b) => (a.slug < b.slug ? -1 : 1));
  return [...changes, ...removed.map((b) => removedChange(b, index))];
}

function templateChange(template: BenchmarkTemplate, index: StateIndex): BenchmarkTemplateChange {
  const stored = index.benchmarks.get(template.slug);
  const keys = template.operation.metrics.map((m) => m.key);
  const related = index.related(keys, template.slug);
  const targetKey = template.threshold?.metric ?? keys[0] ?? null;
  return {
    slug: template.slug,
    status: stored === undefined ? 'added' : differs(template, stored) ? 'updated' : 'unchanged',
    operation: template.operation,
    requirements: template.requirements,
    metricChanges: compareMetrics(template, stored),
    conflictKeys: conflictKeys(template, index),
    supportedMarkets: template.supportedMarkets,
    existingThresholds: related.thresholds,
    existingMarketThresholds: related.links,
    reconciliation: links(template.slug, keys, targetKey, template.supportedMarkets, ruleOf(template), index),
  };
}

function removedChange(stored: StoredBenchmark, index: StateIndex): BenchmarkTemplateChange {
  const keys = stored.operation.metrics.map((m) => m.key);
  const related = index.related(keys, stored.slug);
  const targetKey = keys[0] ?? null;
  const target = targetKey === null ? undefined : gatingThreshold(stored.slug, targetKey, index);
  // Nothing is supported any more: every per-market link of the target goes; no threshold is created.
  const remove = marketLinks(target, index).map(({ thresholdId, marketAddress }) => ({ thresholdId, marketAddress }));
  return {
    slug: stored.slug,
    status: 'removed',
    operation: null,
    requirements: stored.requirements,
    metricChanges: { added: [], updated: [], removed: keys, unchanged: [] },
    conflictKeys: [],
    supportedMarkets: stored.supportedMarkets,
    existingThresholds: related.thresholds,
    existingMarketThresholds: related.links,
    reconciliation: summary({ keys, targetKey, target, needsThreshold: false, add: [], remove, index }),
  };
}

function differs(template: BenchmarkTemplate, stored: StoredBenchmark): boolean {
  return (
    canonicalJson(template.operation) !== canonicalJson(stored.operation) ||
    canonicalJson(template.requirements) !== canonicalJson(stored.requirements) ||
    canonicalJson(template.supportedMarkets) !== canonicalJson(stored.supportedMarkets)
  );
}

function compareMetrics(template: BenchmarkTemplate, stored: StoredBenchmark | undefined): MetricChanges {
  const before = new Map((stored?.operation.metrics ?? []).map((m) => [m.key, canonicalJson(m)]));
  const changes: MetricChanges = { added: [], updated: [], removed: [], unchanged: [] };
  const present = new Set<string>();
  for (const metric of template.operation.metrics) {
    present.add(metric.key);
    const old = before.get(metric.key);
    changes[old === undefined ? 'added' : old === canonicalJson(metric) ? 'unchanged' : 'updated'].push(metric.key);
  }
  changes.removed = [...before.keys()].filter((key) => !present.has(key));
  return changes;
}

/**
 * Keys that a gating threshold of another benchmark's group gates under
 * another definition of the metric: all gating thresholds of the key, less
 * those whose benchmark defines it as this template does, less this
 * benchmark's own (which differ only when this template changes the metric).
 */
function conflictKeys(template: BenchmarkTemplate, index: StateIndex): string[] {
  return template.operation.metrics
    .filter((metric) => {
      const gated = index.gatedDefinitions.get(metric.key);
      if (gated === undefined) return false;
      const mine = canonicalJson(metric);
      let others = gated.total - (gated.byDefinition.get(mine) ?? 0);
      const own = index.metricDefinitions.get(template.slug)?.get(metric.key);
      if (own !== undefined && own !== mine) others -= (index.thresholdsByGroup.get(template.slug) ?? []).filter((t) => t.isGating && t.metric === metric.key).length;
      return others > 0;
    })
    .map((m) => m.key);
}

function gatingThreshold(slug: string, metric: string, index: StateIndex): ThresholdRecord | undefined {
  return (index.thresholdsByGroup.get(slug) ?? []).find((t) => t.isGating && t.metric === metric);
}

function marketLinks(target: ThresholdRecord | undefined, index: StateIndex): MarketLink[] {
  return target === undefined ? [] : (index.linksByThreshold.get(target.id) ?? []).filter(isMarketLink);
}

function hasGlobalLink(target: ThresholdRecord | undefined, index: StateIndex): boolean {
  return target !== undefined && (index.linksByThreshold.get(target.id) ?? []).some((l) => l.marketAddress === null);
}

function ruleOf(template: BenchmarkTemplate): LinkRule | undefined {
  const { jsonLogic, optional } = template.threshold ?? {};
  return jsonLogic === undefined ? undefined : { jsonLogic, isOptional: optional ?? false };
}

function links(slug: string, keys: string[], targetKey: string | null, markets: string[], rule: LinkRule | undefined, index: StateIndex): BenchmarkReconciliation {
  const target = targetKey === null ? undefined : gatingThreshold(slug, targetKey, index);
  const existing = new Map(marketLinks(target, index).map((l) => [l.marketAddress, l]));
  const supported = new Set(markets);
  const add =
    targetKey === null || hasGlobalLink(target, index)
      ? []
      : markets
          .filter((market) => {
            const link = existing.get(market);
            return link === undefined || (rule !== undefined && !sameRule(link, rule));
          })
          .map((marketAddress) => ({ marketAddress, jsonLogic: rule?.jsonLogic ?? defaultRule(targetKey) }));
  const remove = [...existing.values()].filter((l) => !supported.has(l.marketAddress)).map(({ thresholdId, marketAddress }) => ({ thresholdId, marketAddress }));
  return summary({ keys, targetKey, target, needsThreshold: targetKey !== null && target === undefined, add, remove, index });
}

function sameRule(link: MarketThresholdRecord, rule: LinkRule): boolean {
  return link.isOptional === rule.isOptional && canonicalJson(link.jsonLogic) === canonicalJson(rule.jsonLogic);
}

interface SummaryInput {
  keys: string[];
  targetKey: string | null;
  target: ThresholdRecord | undefined;
  needsThreshold: boolean;
  add: BenchmarkReconciliation['add'];
  remove: BenchmarkReconciliation['remove'];
  index: StateIndex;
}

function summary({ keys, targetKey, target, needsThreshold, add, remove, index }: SummaryInput): BenchmarkReconciliation {
  const inSync = add.length === 0 && remove.length === 0 && !needsThreshold;
  return {
    inSync,
    actionable: !inSync && targetKey !== null,
    needsThreshold,
    hasGlobalLink: hasGlobalLink(target, index),
    targetThresholdId: target?.id ?? null,
    targetMetricKey: targetKey,
    add,
    remove,
    benchmarkMetricKeys: keys,
    defaultMetricKey: keys[0] ?? null,
  };
}
