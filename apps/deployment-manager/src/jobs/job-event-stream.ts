import { Readable, type Writable } from 'node:stream';
import type { JobEventType, JobResetEvent, JobStatusEvent } from '@ocg/contracts';
import { ValidationError, type Logger } from '@ocg/http';
import type { Caller } from './caller';
import type { Watch, EventWakeups } from './event-wakeups';
import type { Lease, StreamLeases } from './event-stream-leases';
import { EVENT_ID, type JobEventLog, type LoggedEvent } from './job-event-log';
import { statusEvent } from './job-events';
import type { JobQueryService } from './job-query.service';
import type { JobRepository } from './job.repository';
import { FINAL_STATES, type JobState } from './state';

export interface EventStreamSettings {
  heartbeatMs: number;
  /** A reader that takes nothing for this long (its buffers are full) is dropped; it may resume. */
  stalledMs: number;
}

export interface JobEventStreamDeps {
  jobs: JobRepository;
  query: JobQueryService;
  log: JobEventLog;
  wakeups: EventWakeups;
  leases: StreamLeases;
  logger: Logger;
  settings: EventStreamSettings;
}

/** Events read from the log per round trip: what a stream holds beyond its socket's buffers. */
const PAGE = 100;
/** How long a client waits before reconnecting after the stream breaks (the SSE `retry` field). */
const RETRY_MS = 2000;

/** No caching or buffering on the way (nginx reads X-Accel-Buffering); the gateway streams it as it comes. */
export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' };

const isFinal = (status: JobState): boolean => FINAL_STATES.includes(status);

/** `GET /jobs/{job}/events`: a job's events as Server-Sent Events, for its poster (ADR 0068). */
export class JobEventStreams {
  private readonly streams = new Set<EventStream>();

  constructor(private readonly d: JobEventStreamDeps) {}

  /** Ends every open stream (the process is shutting down); their readers resume elsewhere with their last id. */
  close(): void {
    for (const stream of this.streams) stream.shutdown();
  }

  /**
   * Checks the caller and the cap, then answers the stream: after
   * `lastEventId` when every event since is still kept; otherwise a `reset`
   * (when an id was given) and a `snapshot` first.
   */
  async open(caller: Caller, job: string, lastEventId?: string): Promise<Readable> {
    if (lastEventId !== undefined && !EVENT_ID.test(lastEventId)) {
      throw new ValidationError('Validation failed: Last-Event-ID is not an id of this stream', [
        { path: '/Last-Event-ID', message: 'must be an event id such as 1764150000000-0' },
      ]);
    }
    await this.d.query.get(caller, job); // another user's job answers 404, as GET /jobs/{job} does
    const lease = await this.d.leases.acquire(job, caller.userId);
    let watch: Watch | undefined;
    try {
      watch = await this.d.wakeups.watch(job);
      const start = await this.start(job, lastEventId);
      const stream = new EventStream(job, start, { ...this.d, lease, watch });
      this.streams.add(stream);
      stream.once('close', () => this.streams.delete(stream));
      return stream;
    } catch (err) {
      watch?.close();
      await lease.release().catch(() => undefined);
      throw err;
    }
  }

  private async start(job: string, lastEventId: string | undefined): Promise<Start> {
    if (lastEventId !== undefined && (await this.d.log.resumable(job, lastEventId))) {
      const now = await this.d.jobs.get(job);
      return { cursor: lastEventId, frames: [retry()], final: isFinal(now.status) };
    }
    const cursor = await this.d.log.position(job); // before the snapshot: nothing after it is missed
    const snapshot = await this.d.query.view(job);
    const frames = [retry()];
    if (lastEventId !== undefined) {
      const reset: JobResetEvent = { lastEventId, message: `The events after ${lastEventId} are no longer kept; the job as it is now follows, and its events from there` };
      frames.push(frame('reset', JSON.stringify(reset)));
    }
    frames.push(frame('snapshot', JSON.stringify(snapshot), cursor));
    return { cursor, frames, final: isFinal(snapshot.status) };
  }
}

interface Start {
  cursor: string;
  frames: string[];
  /** The job had already ended: the stream ends once the log after the cursor is read. */
  final: boolean;
}

type StreamDeps = JobEventStreamDeps & { lease: Lease; watch: Watch };

/**
 * Pulls from the log only when the reader has taken what it was given (a
 * Readable's `_read`), so a slow reader costs one page of events at most;
 * one that takes nothing for `stalledMs` is dropped. Ends after the job's
 * final status event.
 */
class EventStream extends Readable {
  private running = false;
  private closing = false;
  private ended = false;
  private destination: Writable | undefined;
  private demand: (() => void) | undefined;
  private readonly renewal: NodeJS.Timeout;
  private cursor: string;
  private final: boolean;

  constructor(
    private readonly job: string,
    start: Start,
    private readonly d: StreamDeps,
  ) {
    super({ highWaterMark: 64 * 1024 });
    this.cursor = start.cursor;
    this.final = start.final;
    for (const f of start.frames) this.push(f);
    this.renewal = setInterval(() => d.lease.renew().catch(() => undefined), d.settings.heartbeatMs);
    this.renewal.unref();
  }

  /** The answer it is piped into closing (the client went away) ends the stream and frees its lease. */
  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    this.destination = destination as unknown as Writable;
    this.destination.once('close', () => this.destroy());
    return super.pipe(destination, options);
  }

  /** Ends the stream after what it is sending now, as if the job's events ran out here. */
  shutdown(): void {
    this.closing = true;
    this.d.watch.notify();
  }

  override _read(): void {
    this.demand?.();
    if (this.running) return;
    this.running = true;
    this.run().catch((err: Error) => {
      this.d.logger.warn({ job: this.job, err: err.message }, 'job event stream broke');
      this.destroy(err);
    });
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    // Dropped before its end (a stalled reader): the answer is cut too, since a pipe only ends it on 'end'.
    if (!this.readableEnded) this.destination?.destroy();
    clearInterval(this.renewal);
    this.demand?.();
    this.d.watch.close();
    this.d.watch.notify();
    this.d.lease.release().catch(() => undefined);
    callback(err);
  }

  private async run(): Promise<void> {
    while (!this.destroyed && !this.ended) {
      const events = await this.d.log.after(this.job, this.cursor, PAGE);
      if (events.length > 0) {
        if (!(await this.send(events))) return;
        continue;
      }
      if (this.final || this.closing) return this.finish();
      if (!(await this.d.watch.next(this.d.settings.heartbeatMs)) && !this.destroyed) await this.heartbeat();
    }
  }

  /** false once the stream ended (a final status went out). */
  private async send(events: LoggedEvent[]): Promise<boolean> {
    for (const e of events) {
      this.cursor = e.id;
      const full = !this.push(frame(e.type, e.data, e.id));
      if (e.type === 'job' && isFinal((JSON.parse(e.data) as JobStatusEvent).status)) {
        this.finish();
        return false;
      }
      if (full) await this.drained();
      if (this.destroyed) return false;
    }
    return true;
  }

  /** A comment proxies see as traffic; and a look at the job, in case its final event was lost. */
  private async heartbeat(): Promise<void> {
    if (!this.push(': heartbeat\n\n')) await this.drained();
    const job = await this.d.jobs.find(this.job);
    if (!job || !isFinal(job.status)) return;
    const after = await this.d.log.after(this.job, this.cursor, PAGE);
    if (after.length > 0) return; // its events are there now: the loop sends them
    this.push(frame('job', JSON.stringify(statusEvent(job))));
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.push(null);
  }

  /** Until the reader takes more; a reader stalled past `stalledMs` is dropped. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.d.logger.info({ job: this.job }, 'job event stream dropped: its reader took nothing');
        this.destroy();
        resolve();
      }, this.d.settings.stalledMs);
      this.demand = () => {
        clearTimeout(timer);
        this.demand = undefined;
        resolve();
      };
    });
  }
}

/** One SSE message; `data` is JSON text, which has no line breaks. */
function frame(type: JobEventType, data: string, id?: string): string {
  return `${id ? `id: ${id}\n` : ''}event: ${type}\ndata: ${data}\n\n`;
}

const retry = (): string => `retry: ${RETRY_MS}\n\n`;
