import { BenchmarkEntity } from './benchmark.entity';
import { MarketThresholdEntity } from './market-threshold.entity';
import { MarketEntity } from './market.entity';
import { NodeEntity } from './node.entity';
import { ThresholdEntity } from './threshold.entity';

export { BenchmarkEntity, MarketEntity, MarketThresholdEntity, NodeEntity, ThresholdEntity };

/** Every entity of host-manager's schema. */
export const entities = [MarketEntity, NodeEntity, BenchmarkEntity, ThresholdEntity, MarketThresholdEntity];
