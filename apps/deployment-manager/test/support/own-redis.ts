import { Redis } from 'ioredis';
import { createRedis } from '@ocg/redis';
import { startEphemeralRedis, type EphemeralServer } from '@ocg/testing';

/**
 * A Redis server of the test file's own, so what it counts (commands,
 * subscriptions) and what it flushes touch no other test: `redis` is the
 * service's client, made as main.ts makes it (commands pipelined per turn),
 * `admin` a plain one to look with. Started before the file's tests, stopped
 * after them.
 */
export function ownRedis(): { readonly redis: Redis; readonly admin: Redis } {
  const held = {} as { server?: EphemeralServer; redis: Redis; admin: Redis };
  beforeAll(async () => {
    held.server = await startEphemeralRedis();
    held.redis = createRedis(held.server.url, { autoPipelining: true });
    held.admin = new Redis(held.server.url);
  });
  afterAll(async () => {
    held.redis?.disconnect();
    held.admin?.disconnect();
    await held.server?.dispose();
  });
  return held;
}
