import type { BenchmarkOperation, MarketThresholdRecord, ThresholdRecord } from '@ocg/contracts';

/** A stored benchmark as reconciliation sees it. */
export interface StoredBenchmark {
  slug: string;
  operation: BenchmarkOperation;
  requirements: Record<string, unknown>[];
  supportedMarkets: string[];
}

/** What apply compares templates against: every benchmark, threshold and link. */
export interface StoredState {
  benchmarks: StoredBenchmark[];
  /** By id. */
  thresholds: ThresholdRecord[];
  /** By threshold id, then market (the global link first). */
  links: MarketThresholdRecord[];
}
