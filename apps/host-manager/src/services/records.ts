/** Entities to the DTOs of @ocg/contracts. */
import { DEFAULT_CONTAINER_POLICY, DEFAULT_JOB_LIMITS } from '@ocg/contracts';
import type { BenchmarkRecord, MarketRecord, MarketThresholdRecord, NodeRecord, NodeStatus, ThresholdRecord } from '@ocg/contracts';
import type { BenchmarkEntity, MarketEntity, MarketThresholdEntity, NodeEntity, ThresholdEntity } from '../entities';

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
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

export function toNodeRecord(n: NodeEntity, market: Pick<MarketEntity, 'address' | 'name'>, status: NodeStatus): NodeRecord {
  return {
    address: n.address,
    market: market.address,
    marketName: market.name,
    status,
    state: n.disabledAt ? 'DISABLED' : 'ACTIVE',
    capacity: n.capacity,
    specs: n.specs,
    domain: n.domain,
    ingressUrl: n.ingressUrl,
    registeredAt: n.registeredAt.toISOString(),
    lastSeenAt: n.lastSeenAt?.toISOString() ?? null,
  };
}

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
