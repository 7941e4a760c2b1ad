import { BenchmarkEntity } from './benchmarks/benchmark.entity';
import { MarketThresholdEntity } from './benchmarks/market-threshold.entity';
import { ThresholdEntity } from './benchmarks/threshold.entity';
import { MarketEntity } from './markets/market.entity';
import { NodeEntity } from './nodes/node.entity';

export { BenchmarkEntity, MarketEntity, MarketThresholdEntity, NodeEntity, ThresholdEntity };

/** Every entity of host-manager's schema, one per table the migrations create. */
export const entities = [MarketEntity, NodeEntity, BenchmarkEntity, ThresholdEntity, MarketThresholdEntity];
