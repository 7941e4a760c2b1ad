import type { Redis } from 'ioredis';
import type { Logger } from '@ocg/http';
import { redisKeys } from '@ocg/redis';

/** One reader's wake-ups for one job: set by every publish on the job's channel while it lives. */
export class Watch {
  private dirty = true;
  private wake: (() => void) | undefined;

  constructor(readonly close: () => void) {}

  notify(): void {
    this.dirty = true;
    this.wake?.();
  }

  /**
   * Resolves true at once when a wake-up came since the last call (and
   * forgets it), else at the next one; false after `ms` without any. Read the
   * log after it resolves: a wake-up that arrives during the read is kept.
   */
  next(ms: number): Promise<boolean> {
    if (this.dirty) {
      this.dirty = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(false);
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.dirty = false;
        resolve(true);
      };
    });
  }
}

/**
 * The process's one subscriber connection, shared by every open event
 * stream: a job's channel is subscribed while some stream of it is open
 * (and re-subscribed by ioredis after a reconnect). Wake-ups lost while it
 * was away are covered by the readers' heartbeat, which reads the log anyway.
 */
export class EventWakeups {
  private subscriber: Redis | undefined;
  private readonly watches = new Map<string, { set: Set<Watch>; subscribed: Promise<unknown> }>();

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  /** Resolves once the job's channel is subscribed, so no publish after it is missed. */
  async watch(job: string): Promise<Watch> {
    const channel = redisKeys.jobEvents(job);
    const subscriber = this.connection();
    let entry = this.watches.get(channel);
    if (!entry) {
      entry = { set: new Set(), subscribed: subscriber.subscribe(channel) };
      this.watches.set(channel, entry);
    }
    const { set } = entry;
    const watch: Watch = new Watch(() => {
      set.delete(watch);
      if (set.size > 0 || this.watches.get(channel)?.set !== set) return;
      this.watches.delete(channel);
      subscriber.unsubscribe(channel).catch(this.failed);
    });
    set.add(watch);
    try {
      await entry.subscribed;
    } catch (err) {
      watch.close();
      throw err;
    }
    return watch;
  }

  close(): void {
    this.subscriber?.disconnect();
    this.subscriber = undefined;
    this.watches.clear();
  }

  private connection(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.duplicate();
    subscriber.on('error', this.failed);
    subscriber.on('message', (channel: string) => {
      for (const watch of this.watches.get(channel)?.set ?? []) watch.notify();
    });
    this.subscriber = subscriber;
    return subscriber;
  }

  private readonly failed = (err: Error) => this.logger.warn({ err: err.message }, 'job event wake-ups');
}
