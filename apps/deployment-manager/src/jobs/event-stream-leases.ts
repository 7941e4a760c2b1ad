import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { TooManyRequestsError } from '@ocg/http';
import { redisKeys } from '@ocg/redis';

export interface StreamCaps {
  perJob: number;
  perUser: number;
  /** A lease not renewed this long is gone (its process died); renewed at every heartbeat. */
  leaseMs: number;
}

// Expired leases out, both counts checked, the lease added to both sets: one
// script, so concurrent opens on any replica cannot pass a cap together.
const ACQUIRE = `
for _, key in ipairs(KEYS) do redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[1]) end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 2 end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[2], ARGV[3])
  redis.call('PEXPIRE', key, ARGV[6])
end
return 0`;

export interface Lease {
  renew(): Promise<void>;
  release(): Promise<void>;
}

/** The caps on open event streams, counted in Redis so they hold across replicas. */
export class StreamLeases {
  constructor(
    private readonly redis: Redis,
    private readonly caps: StreamCaps,
  ) {}

  async acquire(job: string, userId: string): Promise<Lease> {
    const keys = [redisKeys.jobEventStreams('job', job), redisKeys.jobEventStreams('user', userId)];
    const member = randomUUID();
    const { perJob, perUser, leaseMs } = this.caps;
    const now = Date.now();
    const refused = Number(await this.redis.eval(ACQUIRE, 2, ...keys, now, now + leaseMs, member, perJob, perUser, leaseMs));
    const retry = leaseMs / 1000;
    if (refused === 1) throw new TooManyRequestsError(`Job ${job} already has ${perJob} open event streams, the most allowed at once; close one, or read GET /jobs/${job}`, retry);
    if (refused === 2) throw new TooManyRequestsError(`You already have ${perUser} open event streams, the most allowed at once per user; close one first`, retry);
    return {
      renew: async () => {
        const expiry = Date.now() + leaseMs;
        const pipeline = this.redis.pipeline();
        for (const key of keys) pipeline.zadd(key, 'XX', expiry, member).pexpire(key, leaseMs);
        await pipeline.exec();
      },
      release: async () => {
        await this.redis.pipeline().zrem(keys[0], member).zrem(keys[1], member).exec();
      },
    };
  }
}
