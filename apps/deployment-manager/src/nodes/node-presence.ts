import type { Redis } from 'ioredis';
import type { ExpressAuthentication } from '@ocg/auth';
import { ForbiddenError, ServiceUnavailableError } from '@ocg/http';
import { redisKeys } from '@ocg/redis';

/**
 * Node requests must come from a live node registered with host-manager. Its
 * signature proves the key; the presence key host-manager's heartbeat keeps
 * alive in the shared Redis (set at registration, renewed by every heartbeat,
 * gone after NODE_PRESENCE_TTL_SECONDS of silence) proves it is live. Which
 * market it joined is checked at claim time (`GET /internal/nodes/{node}`).
 * Redis down: 503, never a pass.
 */
export function requireNodePresence(base: ExpressAuthentication, redis: Redis): ExpressAuthentication {
  return async (req, securityName, scopes) => {
    const identity = await base(req, securityName, scopes);
    if (securityName === 'nodeSignature') await checkPresent(redis, identity.nodeAddress ?? '');
    return identity;
  };
}

async function checkPresent(redis: Redis, node: string): Promise<void> {
  let present: number;
  try {
    present = await redis.exists(redisKeys.nodePresence(node));
  } catch (err) {
    throw new ServiceUnavailableError(`Node presence cannot be checked right now (${(err as Error).message}); try again shortly`);
  }
  if (!present) throw new ForbiddenError(`Node ${node} is not registered or has stopped sending heartbeats: POST /nodes/register, then POST /nodes/heartbeat regularly`);
}
