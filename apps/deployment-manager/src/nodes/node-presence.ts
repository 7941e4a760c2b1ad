import type { Redis } from 'ioredis';
import type { NodeRecord } from '@ocg/contracts';
import type { ExpressAuthentication } from '@ocg/auth';
import { ForbiddenError, ServiceUnavailableError } from '@ocg/http';
import { redisKeys } from '@ocg/redis';
import type { MarketsClient } from '../clients/markets.client';

/**
 * Whether a node is live. The fast answer is the presence key host-manager's
 * heartbeats keep alive in Redis (set at registration, renewed by every
 * heartbeat, gone after NODE_PRESENCE_TTL_SECONDS of silence). When Redis
 * cannot answer, host-manager's own view is asked (its lastSeenAt in
 * Postgres, which heartbeats write every time while Redis is down), so a
 * Redis outage never locks live nodes out. Every Redis failure is
 * remembered: the sweeper gives no "went silent" verdict until Redis has
 * answered for a grace period again (a silence it could not observe).
 */
export class NodePresence {
  private lastFailureAt: number | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly markets: MarketsClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** The presence key: true or false; undefined when Redis cannot say (remembered as a failure). */
  async inRedis(node: string): Promise<boolean | undefined> {
    try {
      return (await this.redis.exists(redisKeys.nodePresence(node))) === 1;
    } catch {
      this.lastFailureAt = this.now();
      return undefined;
    }
  }

  /** True when no Redis failure was seen for `ms` (or ever). */
  observedFor(ms: number): boolean {
    return this.lastFailureAt === undefined || this.now() - this.lastFailureAt >= ms;
  }

  /** host-manager's record of the node (undefined: not registered); throws 503 when host-manager cannot answer. */
  record(node: string): Promise<NodeRecord | undefined> {
    return this.markets.node(node);
  }

  /** For node requests: present in Redis, or (Redis down) ONLINE for host-manager. Otherwise 403; neither can say: 503. */
  async require(node: string): Promise<void> {
    let present = await this.inRedis(node);
    if (present === undefined) {
      const record = await this.record(node).catch((err: Error) => {
        throw new ServiceUnavailableError(`Node presence cannot be checked right now (${err.message}); try again shortly`);
      });
      present = record?.status === 'ONLINE';
    }
    if (!present) throw new ForbiddenError(`Node ${node} is not registered or has stopped sending heartbeats: POST /nodes/register, then POST /nodes/heartbeat regularly`);
  }
}

/** Node requests must come from a live node registered with host-manager: its signature proves the key, presence that it is live. */
export function requireNodePresence(base: ExpressAuthentication, presence: NodePresence): ExpressAuthentication {
  return async (req, securityName, scopes) => {
    const identity = await base(req, securityName, scopes);
    if (securityName === 'nodeSignature') await presence.require(identity.nodeAddress ?? '');
    return identity;
  };
}
