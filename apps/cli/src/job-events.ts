/**
 * Following a job through `GET /jobs/{job}/events` (Server-Sent Events):
 * one connection, opened again with the last event's id after a blip (a cut
 * connection, a quiet one, a gateway restart), so nothing is lost or seen
 * twice; and what the events say, as one line of progress.
 */
import { createApiClient } from '@ocg/api-client';
import type { JobEndpointEvent, JobEventType, JobLogEvent, JobOpEvent, JobRecord, JobState, JobStatusEvent } from '@ocg/contracts';
import { describeFailure, isTransient, reason, type Gateway } from './gateway';
import { CliError } from './output';
import { fetchLine } from './resource-progress';

export interface JobEvent {
  id?: string;
  type: JobEventType;
  data: unknown;
}

/** No byte for this long (the service sends a comment every 15 s): the connection is taken as dead and opened again. */
const QUIET_MS = 45_000;
const FINAL: readonly JobState[] = ['COMPLETED', 'FAILED', 'STOPPED'];
export const isFinal = (status: JobState | undefined): boolean => status !== undefined && FINAL.includes(status);

/**
 * The job's events until it ends (or `signal` aborts). `blip` hears why a
 * connection was opened again. A refusal (404, 401, 429) is a CliError.
 */
export async function* jobEvents(gateway: Gateway, job: string, signal: AbortSignal, blip: (why: string) => void = () => undefined): AsyncGenerator<JobEvent> {
  const client = createApiClient({ baseUrl: gateway.url, apiKey: gateway.apiKey });
  let lastId: string | undefined;
  for (let attempt = 0; !signal.aborted; attempt++) {
    const quiet = new AbortController();
    const abort = () => quiet.abort();
    signal.addEventListener('abort', abort);
    let timer = setTimeout(abort, QUIET_MS);
    try {
      const reply = await client.GET('/jobs/{job}/events', {
        params: { path: { job }, header: lastId ? { 'Last-Event-ID': lastId } : {} },
        parseAs: 'stream',
        signal: quiet.signal,
      });
      const { response } = reply;
      if (!response.ok || !reply.data) {
        if (!isTransient(response.status)) throw new CliError(describeFailure(response.status, reply.error), reply.error);
        blip(`gateway: HTTP ${response.status}`);
      } else {
        for await (const event of serverSentEvents(reply.data as ReadableStream<Uint8Array>, () => (clearTimeout(timer), (timer = setTimeout(abort, QUIET_MS))))) {
          attempt = 0;
          if (event.id) lastId = event.id;
          yield event;
          if (event.type === 'job' && isFinal((event.data as JobStatusEvent).status)) return;
          if (event.type === 'snapshot' && isFinal((event.data as JobRecord).status)) return;
        }
        blip('the event stream ended early');
      }
    } catch (err) {
      if (err instanceof CliError || signal.aborted) throw err;
      blip(quiet.signal.aborted ? 'the event stream went quiet' : `gateway: ${reason(err)}`);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    }
    await pause(Math.min(10_000, 500 * 2 ** attempt), signal);
  }
}

/** The events in a stream of SSE text; `heard` is called for every chunk (comments included). */
async function* serverSentEvents(body: ReadableStream<Uint8Array>, heard: () => void): AsyncGenerator<JobEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    heard();
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const event = parseBlock(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
      if (event) yield event;
    }
  }
}

function parseBlock(block: string): JobEvent | undefined {
  let id: string | undefined;
  let type: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'id') id = value;
    else if (name === 'event') type = value;
    else if (name === 'data') data.push(value);
  }
  if (!type || data.length === 0) return undefined;
  return { id, type: type as JobEventType, data: JSON.parse(data.join('\n')) };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

interface OpSeen {
  status: string;
  /** The node's last word on it (`pulled image …`). */
  note?: string;
  progress?: string;
}

/** What the events said so far, as the job's status and one line of progress. */
export class JobProgress {
  /** `bars`: remote resources' progress as a bar (the spinner's line on a terminal). */
  constructor(private readonly bars = process.stderr.isTTY === true) {}

  status: JobState | undefined;
  reason: string | null = null;
  job: JobRecord | undefined;
  private readonly ops = new Map<string, OpSeen>();
  private readonly endpoints = new Map<string, JobEndpointEvent>();

  apply(event: JobEvent): void {
    if (event.type === 'snapshot') this.snapshot(event.data as JobRecord);
    else if (event.type === 'job') ({ status: this.status, reason: this.reason } = event.data as JobStatusEvent);
    else if (event.type === 'op') this.op(event.data as JobOpEvent);
    else if (event.type === 'log') this.log(event.data as JobLogEvent);
    else if (event.type === 'endpoint') {
      const e = event.data as JobEndpointEvent;
      this.endpoints.set(`${e.op}:${e.port}`, e);
    }
  }

  /** `QUEUED`, `RUNNING; web: pulled image nginx`, `RUNNING; endpoint up https://…`. */
  text(): string {
    const detail = this.status === 'RUNNING' ? this.detail() : undefined;
    return detail ? `${this.status}; ${detail}` : (this.status ?? 'connecting');
  }

  /** One event as a line of its own (`ocg job get --watch`). */
  line(event: JobEvent): string | undefined {
    if (event.type === 'reset') return 'some events were no longer kept; the job as it is now:';
    if (event.type === 'snapshot' || event.type === 'job') return `status ${this.status}${this.reason ? ` (${this.reason})` : ''}`;
    if (event.type === 'op') {
      const op = event.data as JobOpEvent;
      return `op ${op.id}: ${op.status}${op.reason ? ` (${op.reason})` : ''}${this.ops.get(op.id)?.progress ? `, ${this.ops.get(op.id)?.progress}` : ''}`;
    }
    if (event.type === 'endpoint') {
      const e = event.data as JobEndpointEvent;
      return `endpoint ${e.url}: ${ENDPOINT_WORDS[e.status]}`;
    }
    const { op, lines } = event.data as JobLogEvent;
    const said = lines.filter((l) => l.stream === 'nodeerr').at(-1);
    return said ? `op ${op}: ${said.text}` : undefined;
  }

  private snapshot(job: JobRecord): void {
    this.job = job;
    this.status = job.status;
    this.reason = job.reason;
    for (const op of job.ops) this.ops.set(op.id, { ...this.ops.get(op.id), status: op.status, progress: fetchLine(op.resources, this.bars) });
    for (const e of job.endpoints) this.endpoints.set(`${e.op}:${e.port}`, { op: e.op, port: e.port, url: e.url, status: e.status });
  }

  private op(op: JobOpEvent): void {
    this.ops.set(op.id, { ...this.ops.get(op.id), status: op.status, progress: fetchLine(op.resources, this.bars) });
  }

  private log({ op, lines }: JobLogEvent): void {
    const said = lines.filter((l) => l.stream === 'nodeerr').at(-1);
    if (said) this.ops.set(op, { status: 'pending', ...this.ops.get(op), note: said.text });
  }

  private detail(): string | undefined {
    const up = [...this.endpoints.values()].find((e) => e.status === 'ONLINE');
    if (up) return `endpoint up ${up.url}`;
    for (const [id, op] of this.ops) {
      if (op.status === 'completed') continue;
      const starting = [...this.endpoints.values()].some((e) => e.op === id && e.status !== 'ONLINE');
      if (op.status === 'pending') return `${id}: ${op.progress ?? op.note ?? 'preparing (pulling its image, fetching resources)'}`;
      if (op.status === 'running') return `${id}: ${op.progress ?? (starting ? 'started, waiting for its health checks' : 'running')}`;
    }
    return undefined;
  }
}

const ENDPOINT_WORDS = { ONLINE: 'up (health checks passing)', OFFLINE: 'down', PENDING: 'starting (health checks pending)' };

/**
 * A job's events read in the background into a JobProgress, for waits that
 * ask "has it happened yet?" at each event instead of polling.
 */
export class JobWatch {
  readonly progress = new JobProgress();
  /** Why the stream is being opened again, while it is; empty otherwise. */
  private blip = '';
  private failure: unknown;
  private ended = false;
  private readonly stop = new AbortController();
  private readonly listeners = new Set<(event?: JobEvent) => void>();

  constructor(gateway: Gateway, job: string) {
    void this.run(gateway, job);
  }

  /** `progress.text()`, and the blip while there is one. */
  text(): string {
    return this.blip ? `${this.progress.text()}; ${this.blip}` : this.progress.text();
  }

  /** Calls `seen` with every event from now on; returns the unsubscribe. */
  onEvent(seen: (event?: JobEvent) => void): () => void {
    this.listeners.add(seen);
    return () => this.listeners.delete(seen);
  }

  /**
   * Resolves with `check`'s value once it answers one (checked now and after
   * each event); `status` hears the progress line. Rejects with a refusal of
   * the stream, or when the stream ended without `check` answering.
   */
  until<T>(check: (p: JobProgress) => T | undefined, status: (text: string) => void, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const look = () => {
        if (this.progress.status || this.blip) status(this.text());
        let value: T | undefined;
        try {
          value = check(this.progress);
        } catch (err) {
          return finish(() => reject(err));
        }
        if (value !== undefined) return finish(() => resolve(value));
        if (this.failure) return finish(() => reject(this.failure));
        if (this.ended || signal.aborted) return finish(() => reject(new CliError('the job event stream ended')));
      };
      const unsubscribe = this.onEvent(look);
      const finish = (settle: () => void) => {
        unsubscribe();
        signal.removeEventListener('abort', look);
        settle();
      };
      signal.addEventListener('abort', look);
      look();
    });
  }

  close(): void {
    this.stop.abort();
  }

  private async run(gateway: Gateway, job: string): Promise<void> {
    try {
      for await (const event of jobEvents(gateway, job, this.stop.signal, (why) => this.changed(undefined, why))) {
        this.progress.apply(event);
        this.changed(event, '');
      }
    } catch (err) {
      if (!this.stop.signal.aborted) this.failure = err;
    } finally {
      this.ended = true;
      this.changed(undefined, '');
    }
  }

  private changed(event: JobEvent | undefined, blip: string): void {
    this.blip = blip;
    for (const listener of [...this.listeners]) listener(event);
  }
}
