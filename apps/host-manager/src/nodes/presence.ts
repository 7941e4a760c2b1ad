/**
 * Node presence in Redis: a key per node that expires unless heartbeats
 * renew it (the live signal), holding the time lastSeenAt was last written
 * to Postgres, so that write happens at most once per interval across every
 * host-manager instance. Redis holds only what can be rebuilt: when it is
 * down, heartbeats write Postgres every time and status falls back to lastSeenAt.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '@ocg/http';
import { redisKeys } from '@ocg/redis';

// KEYS[1] presence key; ARGV: now (ms), ttl (s), write interval (ms). Returns 1 when Postgres is due a write.
const TOUCH = `
local written = tonumber(redis.call('GET', KEYS[1]) or '')
local now = tonumber(ARGV[1])
local due = written == nil or now - written >= tonumber(ARGV[3])
redis.call('SET', KEYS[1], due and ARGV[1] or tostring(written), 'EX', ARGV[2])
return due and 1 or 0`;

export class NodePresence {
  constructor(
    private readonly redis: Redis,
    readonly ttlSeconds: number,
    private readonly writeIntervalSeconds: number,
    private readonly logger: Logger,
  ) {}

  /** Marks the node present for ttlSeconds; true when lastSeenAt is due a write. */
  async touch(address: string, now = Date.now()): Promise<boolean> {
    try {
      const due = await this.redis.eval(TOUCH, 1, redisKeys.nodePresence(address), now, this.ttlSeconds, this.writeIntervalSeconds * 1000);
      return due === 1;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, node: address }, 'node presence not recorded (Redis); writing lastSeenAt instead');
      return true;
    }
  }

  /** Which of these nodes are present; undefined when Redis cannot say. */
  async present(addresses: string[]): Promise<Set<string> | undefined> {
    if (addresses.length === 0) return new Set();
    try {
      const values = await this.redis.mget(addresses.map((a) => redisKeys.nodePresence(a)));
      return new Set(addresses.filter((_, i) => values[i] !== null));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'node presence unavailable (Redis); status from lastSeenAt');
      return undefined;
    }
  }

  /**
   * Seconds since each node's last heartbeat (each renews its key for the
   * full TTL, so the age is the TTL less what is left); absent: not present.
   * Undefined when Redis cannot say.
   */
  async heartbeatAges(addresses: string[]): Promise<Map<string, number> | undefined> {
    if (addresses.length === 0) return new Map();
    try {
      const pipeline = this.redis.pipeline();
      for (const a of addresses) pipeline.pttl(redisKeys.nodePresence(a));
      const answers = (await pipeline.exec()) ?? [];
      const ages = new Map<string, number>();
      answers.forEach(([err, left], i) => {
        if (!err && typeof left === 'number' && left > 0) ages.set(addresses[i], Math.max(0, this.ttlSeconds - left / 1000));
      });
      return ages;
    } catch {
      return undefined;
    }
  }

  /** How old lastSeenAt may be for a node that is still alive: the TTL plus the interval between writes. */
  get lastSeenLagSeconds(): number {
    return this.ttlSeconds + this.writeIntervalSeconds;
  }

  /** A removed node is no longer present (best effort: the key expires anyway). */
  async forget(address: string): Promise<void> {
    await this.redis.del(redisKeys.nodePresence(address)).catch(() => undefined);
  }

  /** A heartbeat every third of the TTL survives two lost ones. */
  get heartbeatIntervalSeconds(): number {
    return Math.max(1, Math.floor(this.ttlSeconds / 3));
  }
}
