import type { Metrics, Sample } from '@ocg/http';
import type { NodeRepository } from './node.repository';
import type { NodePresence } from './presence';

/** How long one read of the nodes' standing is reused between scrapes. */
const CACHE_MS = 5_000;

type Status = 'online' | 'offline' | 'disabled';

/**
 * Nodes per market by status and the oldest heartbeat among a market's
 * online nodes, read (all nodes, one Redis pipeline) when Prometheus scrapes,
 * at most once per CACHE_MS. Labelled by market, never by node: a market may
 * hold many nodes, the markets are few.
 */
export function nodeMetrics(metrics: Metrics, nodes: NodeRepository, presence: NodePresence): void {
  metrics.sampled(
    CACHE_MS,
    {
      nodes: { name: 'ocg_nodes', help: 'Registered nodes by market and status (online: heartbeats arrive; disabled: by an operator)', labelNames: ['market', 'status'] },
      heartbeatAge: {
        name: 'ocg_node_heartbeat_age_max_seconds',
        help: "Seconds since the last heartbeat of the market's online node heard from longest ago",
        labelNames: ['market'],
      },
    },
    async () => {
      const rows = await nodes.standings();
      const ages = await presence.heartbeatAges(rows.map((r) => r.address));
      // Without Redis, a node seen within the TTL counts as online, as the node routes say.
      const cutoff = Date.now() - presence.lastSeenLagSeconds * 1000;
      const counts = new Map<string, number>();
      const oldest = new Map<string, number>();
      for (const row of rows) {
        const age = ages ? ages.get(row.address) : undefined;
        const online = ages ? age !== undefined : (row.lastSeenAt?.getTime() ?? 0) >= cutoff;
        const status: Status = row.disabledAt ? 'disabled' : online ? 'online' : 'offline';
        const key = `${row.marketAddress} ${status}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        if (status === 'online' && age !== undefined) oldest.set(row.marketAddress, Math.max(oldest.get(row.marketAddress) ?? 0, age));
      }
      const nodeSamples: Sample<'market' | 'status'>[] = [...counts].map(([key, value]) => {
        const [market, status] = key.split(' ');
        return { labels: { market, status }, value };
      });
      return { nodes: nodeSamples, heartbeatAge: [...oldest].map(([market, value]) => ({ labels: { market }, value })) };
    },
  );
}
