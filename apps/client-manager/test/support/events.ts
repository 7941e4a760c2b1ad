import { Redis } from 'ioredis';
import { API_KEY_INVALIDATED_CHANNEL, type ApiKeyInvalidatedEvent } from '@ocg/contracts';
import { subscribeJson } from '@ocg/redis';
import type { Harness } from '../harness';

/** Collects invalidation events on a connection of its own (a subscriber can do nothing else). */
export async function listenForInvalidations(cm: Harness): Promise<{ events: ApiKeyInvalidatedEvent[]; close(): void }> {
  const subscriber = new Redis(cm.config.REDIS_URL);
  const events: ApiKeyInvalidatedEvent[] = [];
  await subscribeJson<ApiKeyInvalidatedEvent>(subscriber, API_KEY_INVALIDATED_CHANNEL, (e) => events.push(e));
  return { events, close: () => subscriber.disconnect() };
}
