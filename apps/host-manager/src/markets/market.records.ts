/** A market entity to its DTO in @ocg/contracts. */
import { DEFAULT_CONTAINER_POLICY, DEFAULT_JOB_LIMITS, type MarketRecord } from '@ocg/contracts';
import type { MarketEntity } from './market.entity';

export function toMarketRecord(m: MarketEntity): MarketRecord {
  return {
    address: m.address,
    name: m.name,
    pricePerSecond: m.pricePerSecond,
    gpuRequired: m.gpuRequired,
    defaultDurationSeconds: m.defaultDurationSeconds,
    maxDurationSeconds: m.maxDurationSeconds,
    jobLimits: { ...DEFAULT_JOB_LIMITS, ...m.jobLimits },
    containerPolicy: { ...DEFAULT_CONTAINER_POLICY, ...m.containerPolicy },
    warmResources: m.warmResources ?? [],
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}
