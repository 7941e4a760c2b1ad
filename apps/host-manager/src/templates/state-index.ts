import type { MarketThresholdRecord, ThresholdRecord } from '@ocg/contracts';
import { canonicalJson } from '@ocg/auth';
import type { StoredBenchmark, StoredState } from './state';

/**
 * The stored state indexed once per apply, so each template costs lookups
 * rather than scans. Benchmarks often share metric keys (every LLM benchmark
 * has tokens_per_second), so what depends only on a template's metric keys
 * is computed once per key set and shared between change records.
 */
export interface StateIndex {
  benchmarks: Map<string, StoredBenchmark>;
  /** slug -> metric key -> canonical JSON of its definition. */
  metricDefinitions: Map<string, Map<string, string>>;
  thresholdsByGroup: Map<string, ThresholdRecord[]>;
  linksByThreshold: Map<number, MarketThresholdRecord[]>;
  /** metric key -> how many gating thresholds gate it, per definition their group's benchmark gives it. */
  gatedDefinitions: Map<string, { total: number; byDefinition: Map<string, number> }>;
  /** Thresholds whose metric is one of `keys` or whose group is `slug`, by id, with their links. */
  related(keys: string[], slug: string): { thresholds: ThresholdRecord[]; links: MarketThresholdRecord[] };
}

interface Related {
  thresholds: ThresholdRecord[];
  ids: Set<number>;
  links: MarketThresholdRecord[];
}

export function indexState(state: StoredState): StateIndex {
  const thresholds = [...state.thresholds].sort((a, b) => a.id - b.id);
  const metricDefinitions = new Map(state.benchmarks.map((b) => [b.slug, new Map(b.operation.metrics.map((m) => [m.key, canonicalJson(m)]))]));
  const thresholdsByMetric = groupBy(thresholds, (t) => t.metric);
  const thresholdsByGroup = groupBy(thresholds, (t) => t.group);
  const linksByThreshold = groupBy(state.links, (l) => l.thresholdId);
  const linksOf = (list: ThresholdRecord[]) => list.flatMap((t) => linksByThreshold.get(t.id) ?? []);
  const byKeySet = new Map<string, Related>();

  const forKeys = (keys: string[]): Related => {
    const id = [...new Set(keys)].sort().join('\u0000');
    let found = byKeySet.get(id);
    if (!found) {
      const list = [...new Set(keys.flatMap((k) => thresholdsByMetric.get(k) ?? []))].sort((a, b) => a.id - b.id);
      found = { thresholds: list, ids: new Set(list.map((t) => t.id)), links: linksOf(list) };
      byKeySet.set(id, found);
    }
    return found;
  };

  return {
    benchmarks: new Map(state.benchmarks.map((b) => [b.slug, b])),
    metricDefinitions,
    thresholdsByGroup,
    linksByThreshold,
    gatedDefinitions: gatedDefinitions(thresholds, metricDefinitions),
    related(keys, slug) {
      const base = forKeys(keys);
      const extra = (thresholdsByGroup.get(slug) ?? []).filter((t) => !base.ids.has(t.id));
      if (extra.length === 0) return base;
      const merged = [...base.thresholds, ...extra].sort((a, b) => a.id - b.id);
      return { thresholds: merged, links: linksOf(merged) };
    },
  };
}

function gatedDefinitions(thresholds: ThresholdRecord[], definitions: Map<string, Map<string, string>>): StateIndex['gatedDefinitions'] {
  const out: StateIndex['gatedDefinitions'] = new Map();
  for (const t of thresholds) {
    if (!t.isGating || t.group === null || t.metric === null) continue;
    const definition = definitions.get(t.group)?.get(t.metric);
    if (definition === undefined) continue; // its benchmark is gone: no definition to differ from
    const entry = out.get(t.metric) ?? { total: 0, byDefinition: new Map<string, number>() };
    entry.total++;
    entry.byDefinition.set(definition, (entry.byDefinition.get(definition) ?? 0) + 1);
    out.set(t.metric, entry);
  }
  return out;
}

/** Items by key; items whose key is null are left out. */
function groupBy<T, K>(items: T[], keyOf: (item: T) => K | null): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === null) continue;
    const list = out.get(key);
    if (list) list.push(item);
    else out.set(key, [item]);
  }
  return out;
}
