/**
 * Benchmarks, thresholds and `POST /benchmark-templates/apply`
 * (docs: shared/design/BENCHMARK-TEMPLATES.md).
 */

/** A free-form metric definition; `key` names the value it yields. */
export interface BenchmarkMetric {
  /**
   * @minLength 1
   * @maxLength 128
   */
  key: string;
  [member: string]: unknown;
}

export interface BenchmarkOperation {
  /**
   * @minLength 1
   * @maxLength 200
   */
  name: string;
  /** @maxLength 10000 */
  description?: string;
  /** @maxLength 2000 */
  source?: string;
  /**
   * Job-definition ops (container/run, container/create-volume) joined to the job they measure.
   * @maxItems 64
   */
  ops: Record<string, unknown>[];
  /** @maxItems 100 */
  metrics: BenchmarkMetric[];
}

/** How the template gates markets: a JsonLogic rule over metric values. */
export interface BenchmarkTemplateThreshold {
  /**
   * One of the template's metric keys; default: the first.
   * @maxLength 128
   */
  metric?: string;
  /**
   * A JsonLogic rule (an object with one operator), e.g. `{">=": [{"var": "tokens_per_second"}, 20]}`.
   * Default: the metric has a value (`{"!=": [{"var": "<metric>"}, null]}`), and existing rules are kept.
   */
  jsonLogic?: Record<string, unknown>;
  /** Whether a market may admit nodes that lack this metric. Default false. */
  optional?: boolean;
}

export interface BenchmarkTemplate {
  /**
   * Lowercase letters, digits, `.`, `_` and `-`.
   * @minLength 1
   * @maxLength 128
   * @pattern ^[a-z0-9][a-z0-9._-]*$
   */
  slug: string;
  operation: BenchmarkOperation;
  /** @maxItems 100 */
  requirements: Record<string, unknown>[];
  /**
   * Market addresses this benchmark gates.
   * @maxItems 1000
   */
  supportedMarkets: MarketReference[];
  threshold?: BenchmarkTemplateThreshold;
}

/**
 * A market's address or name.
 * @minLength 1
 * @maxLength 200
 */
export type MarketReference = string;

export interface ApplyBenchmarkTemplatesRequest {
  /** @maxItems 500 */
  templates: BenchmarkTemplate[];
  /** true: stored benchmarks missing from `templates` are removed. Default false. */
  prune?: boolean;
  /** Default true: compute and return the changes, write nothing. */
  dryRun?: boolean;
}

export type BenchmarkChangeStatus = 'added' | 'updated' | 'removed' | 'unchanged';

/** Metric keys of the template against the stored benchmark. */
export interface MetricChanges {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
}

export interface ThresholdRecord {
  id: number;
  name: string;
  metric: string | null;
  /** The benchmark slug it belongs to, or null. */
  group: string | null;
  isGating: boolean;
}

export interface MarketThresholdRecord {
  thresholdId: number;
  /** null: a global link, applying to every market. */
  marketAddress: string | null;
  jsonLogic: Record<string, unknown>;
  isOptional: boolean;
}

export interface ThresholdLinkToAdd {
  marketAddress: string;
  jsonLogic: Record<string, unknown>;
}

export interface ThresholdLinkToRemove {
  thresholdId: number;
  marketAddress: string;
}

export interface BenchmarkReconciliation {
  /** `add` and `remove` are empty and `needsThreshold` is false. */
  inSync: boolean;
  /** Not in sync, and a target metric exists. */
  actionable: boolean;
  /** A target metric exists but no gating threshold of this group for it (apply creates it). */
  needsThreshold: boolean;
  /** The target threshold has a link with `marketAddress` null. */
  hasGlobalLink: boolean;
  targetThresholdId: number | null;
  targetMetricKey: string | null;
  add: ThresholdLinkToAdd[];
  remove: ThresholdLinkToRemove[];
  benchmarkMetricKeys: string[];
  defaultMetricKey: string | null;
}

/** One per slug: templates first, in request order, then removals. */
export interface BenchmarkTemplateChange {
  slug: string;
  status: BenchmarkChangeStatus;
  /** The template's operation; null for `removed`. */
  operation: BenchmarkOperation | null;
  requirements: Record<string, unknown>[];
  metricChanges: MetricChanges;
  /** Metric keys of this template that a threshold of another benchmark's group already gates under a different metric definition. */
  conflictKeys: string[];
  supportedMarkets: string[];
  /** Stored thresholds whose metric is one of this template's metric keys or whose group is the slug. */
  existingThresholds: ThresholdRecord[];
  /** The links of those thresholds. */
  existingMarketThresholds: MarketThresholdRecord[];
  reconciliation: BenchmarkReconciliation;
}

export interface ApplyBenchmarkTemplatesResponse {
  changes: BenchmarkTemplateChange[];
  /** true when nothing was written. */
  dryRun: boolean;
}

export interface BenchmarkRecord {
  slug: string;
  operation: BenchmarkOperation;
  requirements: Record<string, unknown>[];
  supportedMarkets: string[];
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
}

export interface ListBenchmarksResponse {
  /** By slug. */
  benchmarks: BenchmarkRecord[];
  total: number;
}

export interface GetBenchmarkResponse extends BenchmarkRecord {
  /** Thresholds of this benchmark's group. */
  thresholds: ThresholdRecord[];
  /** Their market links. */
  marketThresholds: MarketThresholdRecord[];
}

export interface ListThresholdsResponse {
  thresholds: ThresholdRecord[];
  marketThresholds: MarketThresholdRecord[];
}
