import type { Redis } from 'ioredis';
import type { JobEventType } from '@ocg/contracts';
import { redisKeys } from '@ocg/redis';

export interface LoggedEvent {
  /** The Redis stream id (`<ms>-<seq>`): the SSE `id`. */
  id: string;
  type: JobEventType;
  /** The event's JSON text. */
  data: string;
}

export interface EventLogSettings {
  /** Events kept per job; older ones are trimmed. */
  retained: number;
  /** Expiry after the job's final event. */
  keepSeconds: number;
  /** Expiry renewed by every event, so the log of a job whose end was never recorded still goes. */
  idleSeconds: number;
}

/** A message to publish along with an event. */
export interface Publication {
  channel: string;
  message: string;
}

/**
 * One event, atomically (one script, one round trip): the `also` messages,
 * the entry (the log trimmed to its last ARGV[1]), the log's expiry, and the
 * wake-up on the job's channel.
 */
const APPEND_SCRIPT = `
for i = 7, #ARGV, 2 do redis.call('PUBLISH', ARGV[i], ARGV[i + 1]) end
redis.call('XADD', KEYS[1], 'MAXLEN', '=', ARGV[1], '*', 'type', ARGV[3], 'data', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1`;

/** The script as a command of the connection (ioredis `defineCommand`): its SHA1 is sent (`EVALSHA`), its text only when the server does not have it. */
const APPEND = 'ocgAppendJobEvent';
type WithAppend = Redis & { [APPEND](key: string, ...args: (string | number)[]): Promise<unknown> };

/** Stream ids as Redis writes them: a client's `Last-Event-ID` must be one. */
export const EVENT_ID = /^\d{1,20}-\d{1,20}$/;
/** The position before any event. */
export const START = '0-0';

/**
 * One job's events, kept in a Redis stream (bounded by `retained`, expiring
 * after the job ends) so that any replica can serve them and a reader can
 * resume after the last id it saw. Appending also publishes a wake-up on the
 * job's channel, in the same MULTI, so readers never miss an entry they were
 * told about (one script: ADR 0074).
 */
export class JobEventLog {
  private readonly redis: WithAppend;

  constructor(
    redis: Redis,
    private readonly settings: EventLogSettings,
  ) {
    // The text went with every EVAL (ADR 0080): ioredis sends it once per connection, then its hash, and again after NOSCRIPT.
    if (!(APPEND in redis)) redis.defineCommand(APPEND, { numberOfKeys: 1, lua: APPEND_SCRIPT });
    this.redis = redis as WithAppend;
  }

  /** With `also`, more messages published by the same command (one round trip for all). */
  async append(job: string, type: JobEventType, data: unknown, final = false, also: Publication[] = []): Promise<void> {
    const expiry = final ? this.settings.keepSeconds : this.settings.idleSeconds;
    const notice = JSON.stringify({ job, type });
    const extra = also.flatMap((p) => [p.channel, p.message]);
    await this.redis[APPEND](redisKeys.jobEventLog(job), this.settings.retained, expiry, type, JSON.stringify(data), redisKeys.jobEvents(job), notice, ...extra);
  }

  /** Up to `count` events after `id`, oldest first. */
  async after(job: string, id: string, count: number): Promise<LoggedEvent[]> {
    const entries = await this.redis.xrange(redisKeys.jobEventLog(job), `(${id}`, '+', 'COUNT', count);
    return entries.map(([entryId, fields]) => ({ id: entryId, type: field(fields, 'type') as JobEventType, data: field(fields, 'data') }));
  }

  /** The id of the newest event (START when there is none): a snapshot taken after reading it misses nothing after it. */
  async position(job: string): Promise<string> {
    const [last] = await this.redis.xrevrange(redisKeys.jobEventLog(job), '+', '-', 'COUNT', 1);
    return last ? last[0] : START;
  }

  /**
   * Whether every event after `id` is still kept: the log exists, `id` is no
   * later than its newest entry, and `id` is at least its oldest kept entry
   * (or nothing was ever trimmed). Redis does not record which id a MAXLEN
   * trim removed last, so the id of exactly the last trimmed event also reads
   * as too old: the reader then gets a snapshot, never a gap.
   */
  async resumable(job: string, id: string): Promise<boolean> {
    let info: unknown[];
    try {
      info = (await this.redis.xinfo('STREAM', redisKeys.jobEventLog(job))) as unknown[];
    } catch (err) {
      if (/no such key/i.test((err as Error).message)) return false;
      throw err;
    }
    const value = (name: string) => info[info.indexOf(name) + 1];
    if (compareIds(id, String(value('last-generated-id'))) > 0) return false;
    if (Number(value('entries-added')) === Number(value('length'))) return true;
    const first = value('first-entry') as [string, string[]] | null;
    return first !== null && compareIds(id, first[0]) >= 0;
  }
}

/** Orders two stream ids (`ms-seq`, each up to 20 digits: compared as BigInts). */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}

function field(fields: string[], name: string): string {
  const i = fields.indexOf(name);
  return i % 2 === 0 ? fields[i + 1] : '';
}
