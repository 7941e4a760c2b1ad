import type { Redis } from 'ioredis';

/** The cached JSON value, or undefined when absent or unreadable (a cache miss, never an error). */
export async function getJson<T>(redis: Redis, key: string): Promise<T | undefined> {
  const text = await redis.get(key);
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** Caches a JSON value; every cache entry expires, so nothing stale outlives ttlSeconds. */
export async function setJson(redis: Redis, key: string, value: unknown, ttlSeconds: number): Promise<void> {
  await redis.set(key, JSON.stringify(value), 'EX', Math.max(1, Math.ceil(ttlSeconds)));
}

export async function publishJson(redis: Redis, channel: string, message: unknown): Promise<number> {
  return redis.publish(channel, JSON.stringify(message));
}

/**
 * Calls onMessage with each JSON message on channel. `subscriber` must be a
 * connection of its own (createRedis): a subscribed connection can run no
 * other command. ioredis resubscribes after a reconnect; messages published
 * while disconnected are lost, so pub/sub only ever wakes or hints.
 * Returns the unsubscribe function.
 */
export async function subscribeJson<T>(subscriber: Redis, channel: string, onMessage: (message: T) => void): Promise<() => Promise<void>> {
  const listener = (ch: string, text: string) => {
    if (ch !== channel) return;
    let message: T;
    try {
      message = JSON.parse(text) as T;
    } catch {
      return; // not ours to crash on
    }
    onMessage(message);
  };
  subscriber.on('message', listener);
  await subscriber.subscribe(channel);
  return async () => {
    subscriber.off('message', listener);
    await subscriber.unsubscribe(channel);
  };
}
