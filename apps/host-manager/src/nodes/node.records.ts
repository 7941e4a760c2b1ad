/** A node entity to its DTO in @ocg/contracts. */
import type { NodeRecord, NodeStatus } from '@ocg/contracts';
import type { MarketEntity } from '../markets/market.entity';
import type { NodeEntity } from './node.entity';

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
