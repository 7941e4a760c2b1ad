import type { Redis } from 'ioredis';
import type { Logger } from '@ocg/http';
import { redisKeys } from '@ocg/redis';
import type { Publication } from './job-event-log';

const PATTERN = redisKeys.marketJobsQueued('*');
const PREFIX = PATTERN.slice(0, -1);

/** The message that wakes a market's claimers, for a caller that publishes it along with others (JobEvents.changed). */
export const wakeUp = (market: string): Publication => ({ channel: redisKeys.marketJobsQueued(market), message: '1' });

/**
 * Wakes long-polling claimers when a job is queued in their market. Redis
 * pub/sub only wakes: a lost message costs a claimer its wait (it claims
 * again when the wait ends), never a job, since the queue is the jobs table.
 */
export class MarketWaker {
  private readonly waiting = new Map<string, Set<() => void>>();
  private subscriber: Redis | undefined;
  private ended = false;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  /** Tells the market's claimers (in every instance) to look again. Never throws. */
  wake(market: string): void {
    const { channel, message } = wakeUp(market);
    this.redis.publish(channel, message).catch((err: Error) => this.logger.warn({ err: err.message }, 'could not publish a queued job (claimers will find it on their next poll)'));
  }

  /** True once closed: a long poll answers with what it has instead of waiting again. */
  get closed(): boolean {
    return this.ended;
  }

  /** Resolves when the market is woken or after `ms`, whichever comes first; at once when closed (no subscription is made then). */
  wait(market: string, ms: number, signal?: AbortSignal): Promise<void> {
    if (this.ended) return Promise.resolve();
    this.listen();
    return new Promise((resolve) => {
      const set = this.waiting.get(market) ?? new Set();
      this.waiting.set(market, set);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0 && this.waiting.get(market) === set) this.waiting.delete(market);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done);
      set.add(done);
    });
  }

  close(): void {
    this.ended = true;
    for (const set of this.waiting.values()) for (const done of [...set]) done();
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }

  /** One pattern subscription per process, made on the first wait. */
  private listen(): void {
    if (this.subscriber) return;
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined); // it reconnects by itself; meanwhile claimers wait out their timeout
    subscriber.on('pmessage', (_pattern: string, channel: string) => {
      for (const done of [...(this.waiting.get(channel.slice(PREFIX.length)) ?? [])]) done();
    });
    subscriber.psubscribe(PATTERN).catch((err: Error) => this.logger.warn({ err: err.message }, 'could not subscribe to queued jobs'));
  }
}
