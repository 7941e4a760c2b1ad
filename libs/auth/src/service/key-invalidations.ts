import type { Redis } from 'ioredis';
import type { KeyCache } from './key-cache';
import { parseInvalidation } from './invalidation';

/** A KeyCache's subscription to client-manager's invalidation channel. */
export interface KeyInvalidations {
  /** Whether invalidations arrive: while false, nothing may be cached (messages sent meanwhile are lost). */
  readonly live: boolean;
  /** Resolves once the subscription is first confirmed. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Keeps `cache` current with the invalidation channel on a connection of its
 * own (a duplicate of `redis`): each message drops what it names, and a lost
 * connection drops everything, since messages published meanwhile are lost.
 * Every process that caches validations in memory uses this (client-manager
 * in front of its Redis cache, the other services in front of client-manager).
 */
export function followKeyInvalidations(redis: Redis, channel: string, cache: Pick<KeyCache<never>, 'clear' | 'dropKeyId' | 'dropHash' | 'dropUser'>): KeyInvalidations {
  const subscriber = redis.duplicate();
  let markReady: () => void = () => undefined;
  let live = false;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  subscriber.on('error', () => undefined); // reconnects on its own; while down, nothing is cached
  subscriber.on('message', (ch: string, text: string) => {
    // Stryker disable next-line ConditionalExpression: the subscriber subscribes to this one channel only
    if (ch !== channel) return;
    const what = parseInvalidation(text);
    if (what.all) cache.clear();
    what.keyIds.forEach((id) => cache.dropKeyId(id));
    what.hashes.forEach((hash) => cache.dropHash(hash));
    what.userIds.forEach((id) => cache.dropUser(id));
  });
  subscriber.on('close', () => {
    live = false;
    cache.clear(); // messages published while we are away are lost
  });
  // On every (re)connection: caching resumes only once the server confirms the subscription.
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(
      () => {
        live = true;
        markReady();
      },
      () => undefined,
    );
  });
  return {
    get live() {
      return live;
    },
    ready,
    close: async () => subscriber.disconnect(),
  };
}
