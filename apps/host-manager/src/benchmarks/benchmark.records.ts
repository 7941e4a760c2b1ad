/** Benchmark, threshold and link entities to their DTOs in @ocg/contracts. */
import type { BenchmarkRecord, MarketThresholdRecord, ThresholdRecord } from '@ocg/contracts';
import type { BenchmarkEntity } from './benchmark.entity';
import type { MarketThresholdEntity } from './market-threshold.entity';
import type { ThresholdEntity } from './threshold.entity';

export function toBenchmarkRecord(b: BenchmarkEntity): BenchmarkRecord {
  return {
    slug: b.slug,
    operation: b.operation,
    requirements: b.requirements,
    supportedMarkets: b.supportedMarkets,
    createdAt: b.createdAt.toISOString(),
    updatedAt: b.updatedAt.toISOString(),
  };
}

export function toThresholdRecord(t: ThresholdEntity): ThresholdRecord {
  return { id: t.id, name: t.name, metric: t.metric, group: t.group, isGating: t.isGating };
}

export function toLinkRecord(l: MarketThresholdEntity): MarketThresholdRecord {
  return { thresholdId: l.thresholdId, marketAddress: l.marketAddress, jsonLogic: l.jsonLogic, isOptional: l.isOptional };
}
