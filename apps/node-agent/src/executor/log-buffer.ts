import type { JobLogStream, NodeLogLine } from '@ocg/contracts';

/** stdout/stderr of the container; nodeerr: what the node says about the op (pull errors, exits). */
export type LogStream = JobLogStream;

/** `seq` increases by one per line over the op's life, so a follower can tell what it missed (the node API's line). */
export type LogLine = NodeLogLine;

type Follower = { onLine: (line: LogLine) => void; onEnd: () => void };

/** A line costs its text plus about this much bookkeeping. */
const LINE_OVERHEAD = 48;
/** Longer lines are cut: one runaway line must not evict everything else. */
export const MAX_LINE_CHARS = 16 * 1024;

/**
 * The last lines of an op's output, bounded by count and bytes (a ring: the
 * oldest go first), with live followers. Closed when the op ends; a restart
 * reopens it.
 */
export class LogBuffer {
  private readonly ring: (LogLine | undefined)[];
  private start = 0;
  private size = 0;
  private bytes = 0;
  private nextSeq = 1;
  private closed = false;
  private readonly followers = new Set<Follower>();

  constructor(
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {
    this.ring = new Array<LogLine | undefined>(maxLines);
  }

  push(stream: LogStream, text: string, time = new Date().toISOString()): LogLine {
    const line: LogLine = { seq: this.nextSeq++, time, stream, text: text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS) : text };
    if (this.size === this.maxLines) this.evict();
    this.ring[(this.start + this.size) % this.maxLines] = line;
    this.size++;
    this.bytes += cost(line);
    while (this.bytes > this.maxBytes && this.size > 1) this.evict();
    for (const f of this.followers) f.onLine(line);
    return line;
  }

  /**
   * Numbers the first line `seq` instead of 1: an adopted op's log, whose
   * earlier lines (its earlier containers', the node's own) this agent never
   * saw. Only before the first line; anything but a whole number over 1 is
   * left alone.
   */
  continueAt(seq: number): void {
    if (this.nextSeq === 1 && this.size === 0 && Number.isSafeInteger(seq) && seq > 1) this.nextSeq = seq;
  }

  /** The retained lines, oldest first; `tail` keeps only the last ones. */
  lines(opts: { tail?: number; streams?: ReadonlySet<LogStream> } = {}): LogLine[] {
    const out: LogLine[] = [];
    for (let i = 0; i < this.size; i++) {
      const line = this.ring[(this.start + i) % this.maxLines];
      if (line && (!opts.streams || opts.streams.has(line.stream))) out.push(line);
    }
    return opts.tail === undefined ? out : out.slice(Math.max(0, out.length - opts.tail));
  }

  /** The `seq` of the oldest retained line (the next line's when none is retained): lines before it were evicted. */
  get firstSeq(): number {
    return this.size === 0 ? this.nextSeq : (this.ring[this.start] as LogLine).seq;
  }

  /** The `seq` of the newest line, retained or not; 0 before the first. */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Up to `max` retained lines after `seq`, oldest first (seqs are consecutive in the ring, so no scan). */
  after(seq: number, max: number): LogLine[] {
    const out: LogLine[] = [];
    for (let i = Math.max(0, seq + 1 - this.firstSeq); i < this.size && out.length < max; i++) out.push(this.ring[(this.start + i) % this.maxLines] as LogLine);
    return out;
  }

  /** The last `count` lines of one stream, for failure reasons. */
  lastOf(stream: LogStream, count: number): string[] {
    return this.lines({ streams: new Set([stream]), tail: count }).map((l) => l.text);
  }

  /** Calls `onLine` for each new line until the op ends (`onEnd`); returns the unsubscribe. */
  follow(onLine: (line: LogLine) => void, onEnd: () => void): () => void {
    if (this.closed) {
      onEnd();
      return () => undefined;
    }
    const follower = { onLine, onEnd };
    this.followers.add(follower);
    return () => this.followers.delete(follower);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const f of this.followers) f.onEnd();
    this.followers.clear();
  }

  reopen(): void {
    this.closed = false;
  }

  private evict(): void {
    const line = this.ring[this.start];
    this.ring[this.start] = undefined;
    this.start = (this.start + 1) % this.maxLines;
    this.size--;
    if (line) this.bytes -= cost(line);
  }
}

function cost(line: LogLine): number {
  return Buffer.byteLength(line.text) + LINE_OVERHEAD;
}
