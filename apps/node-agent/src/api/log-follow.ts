import type { Response } from 'express';
import type { NodeLogNotice, NodeLogStreamItem } from '@ocg/contracts';
import { TooManyRequestsError } from '@ocg/http';
import type { LogBuffer } from '../executor/log-buffer';
import type { LogQuery } from './logs';

/** Lines read from the ring at a time while catching up. */
const BATCH = 256;

/**
 * `?follow=true`: NDJSON, one `NodeLogLine` per line (the retained ones
 * first, then live ones) and `NodeLogNotice`s about the stream (a heartbeat
 * every `heartbeatMs` too), until the op ends (`{"notice":"end"}`) or the
 * caller hangs up.
 *
 * The ring is the only queue: the follower remembers the last seq it handled
 * and writes from the ring after it until the socket is full; a slow reader
 * is then left alone until 'drain', and lines the ring evicted meanwhile are
 * counted in a `missed` notice instead of being held. So a follower costs the
 * node at most the socket's high-water mark and one line, however slowly it
 * reads.
 */
export function followLog(res: Response, logs: LogBuffer, query: LogQuery, heartbeatMs: number): void {
  res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  // The caller learns at once that the follow was taken, even when nothing is written for a while.
  res.flushHeaders();
  let sent = startAfter(logs, query);
  let ended = false;
  let waiting = false;
  const write = (item: NodeLogStreamItem) => res.write(`${JSON.stringify(item)}\n`);

  const pump = (): void => {
    if (waiting || res.writableEnded || res.destroyed) return;
    const first = logs.firstSeq;
    if (first > sent + 1) {
      write({ notice: 'missed', count: first - sent - 1 });
      sent = first - 1;
    }
    for (let batch = logs.after(sent, BATCH); batch.length > 0; batch = logs.after(sent, BATCH)) {
      for (const line of batch) {
        sent = line.seq;
        if (query.keep(line)) write(line);
        if (res.writableNeedDrain) {
          waiting = true;
          res.once('drain', () => {
            waiting = false;
            pump();
          });
          return;
        }
      }
    }
    if (ended) res.end(`${JSON.stringify({ notice: 'end' } satisfies NodeLogNotice)}\n`);
  };

  const unsubscribe = logs.follow(pump, () => {
    ended = true;
    pump();
  });
  // A quiet op still says something now and then, so proxies keep the stream open and a caller can tell a dead connection from silence.
  const heartbeat = setInterval(() => waiting || res.writableEnded || write({ notice: 'heartbeat' }), heartbeatMs);
  res.on('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
  });
  pump();
}

/** The seq the stream starts after: the caller's `after`, else before the oldest retained line, moved on so only the last `tail` wanted lines remain. */
function startAfter(logs: LogBuffer, query: LogQuery): number {
  const start = query.after ?? logs.firstSeq - 1;
  if (query.tail === undefined) return start;
  const wanted = logs.lines().filter((l) => l.seq > start && query.keep(l));
  return wanted.length > query.tail ? wanted[wanted.length - query.tail - 1].seq : start;
}

export interface FollowSettings {
  /** Open follows per job (LOG_FOLLOWERS_PER_JOB). */
  perJob: number;
  /** How often a follow says it is alive (LOG_FOLLOW_HEARTBEAT_SECONDS). */
  heartbeatMs: number;
}

/** Open follows per job, counted until each connection closes; past the cap a 429. */
export class Followers {
  private readonly open = new Map<string, number>();

  constructor(readonly settings: FollowSettings) {}

  take(job: string, res: Response): void {
    const key = job.toLowerCase();
    const count = this.open.get(key) ?? 0;
    if (count >= this.settings.perJob)
      throw new TooManyRequestsError(`job ${job} already has ${count} log followers on this node, the most it allows (LOG_FOLLOWERS_PER_JOB): close one and try again`, 5);
    this.open.set(key, count + 1);
    res.on('close', () => {
      const left = (this.open.get(key) ?? 1) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    });
  }
}
