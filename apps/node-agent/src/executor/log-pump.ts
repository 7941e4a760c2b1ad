import { StringDecoder } from 'node:string_decoder';
import type Docker from 'dockerode';
import type { LogStream } from './log-buffer';

export type LogSink = (stream: LogStream, time: string, text: string) => void;

const HEADER = 8;
type Demuxed = 'stdout' | 'stderr';
const STREAMS: Record<number, Demuxed> = { 1: 'stdout', 2: 'stderr' };

/**
 * Follows a container's logs (engine-side, so nothing is lost while the agent
 * is down) and hands over complete lines with their engine timestamps. A
 * follow ends when the container stops; after a restart `follow` is called
 * again and skips what it already delivered, by timestamp.
 */
export class LogPump {
  private last: string | undefined;
  private current: NodeJS.ReadableStream | undefined;
  private stopped = false;

  constructor(
    private readonly container: Docker.Container,
    private readonly sink: LogSink,
  ) {}

  /** Resolves when the engine ends the stream (the container stopped) or `stop` was called. */
  async follow(): Promise<void> {
    if (this.stopped) return;
    // Lines up to here were delivered by an earlier follow. Within one follow the two
    // streams' timestamps may interleave out of order, so only this floor filters.
    const floor = this.last;
    const since = floor ? sinceParam(floor) : 0;
    const stream = (await this.container.logs({ follow: true, stdout: true, stderr: true, timestamps: true, since })) as unknown as NodeJS.ReadableStream;
    this.current = stream;
    if (this.stopped) destroy(stream);
    const parser = new FrameParser((stream, line) => this.line(stream, line, floor));
    await new Promise<void>((resolve) => {
      stream.on('data', (chunk: Buffer) => parser.push(chunk));
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', resolve);
    });
    parser.flush();
    this.current = undefined;
  }

  stop(): void {
    this.stopped = true;
    if (this.current) destroy(this.current);
  }

  private line(stream: LogStream, raw: string, floor: string | undefined): void {
    const space = raw.indexOf(' ');
    const time = space > 0 ? raw.slice(0, space) : '';
    // `since` is inclusive (and coarse on some engines): drop what was already delivered.
    if (floor !== undefined && time <= floor) return;
    if (this.last === undefined || time > this.last) this.last = time;
    this.sink(stream, time, space > 0 ? raw.slice(space + 1) : raw);
  }
}

/**
 * Splits Docker's multiplexed stream (8-byte frame headers) into lines per
 * stream. Each stream's bytes go through its own StringDecoder, so a
 * character whose bytes span two frames comes out whole. (docker-modem's
 * demuxStream recurses once per frame and copies the rest of the buffer per
 * frame: a 64 KiB chunk of short lines overflows the stack; ADR 0055.)
 */
export class FrameParser {
  private pending: Buffer = Buffer.alloc(0);
  private readonly streams: Record<Demuxed, StreamText>;

  constructor(onLine: (stream: LogStream, line: string) => void) {
    this.streams = { stdout: new StreamText((line) => onLine('stdout', line)), stderr: new StreamText((line) => onLine('stderr', line)) };
  }

  push(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (this.pending.length >= HEADER) {
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < HEADER + size) break;
      const stream = STREAMS[this.pending[0]];
      const bytes = this.pending.subarray(HEADER, HEADER + size);
      this.pending = this.pending.subarray(HEADER + size);
      if (stream) this.streams[stream].push(bytes);
    }
  }

  flush(): void {
    this.streams.stdout.flush();
    this.streams.stderr.flush();
  }
}

/** One stream's bytes, decoded across frame boundaries, cut into lines. */
class StreamText {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';

  constructor(private readonly onLine: (line: string) => void) {}

  push(bytes: Buffer): void {
    const parts = (this.partial + this.decoder.write(bytes)).split('\n');
    this.partial = parts.pop() ?? '';
    for (const part of parts) this.onLine(part.endsWith('\r') ? part.slice(0, -1) : part);
  }

  flush(): void {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (rest) this.onLine(rest);
  }
}

/** RFC 3339 with nanoseconds to the API's `seconds.nanoseconds`. */
function sinceParam(time: string): string {
  const match = /^(.*?)(?:\.(\d+))?Z$/.exec(time);
  if (!match) return '0';
  const seconds = Math.floor(Date.parse(`${match[1]}Z`) / 1000);
  return `${seconds}.${(match[2] ?? '0').padEnd(9, '0').slice(0, 9)}`;
}

function destroy(stream: NodeJS.ReadableStream): void {
  (stream as unknown as { destroy?: () => void }).destroy?.();
}
