import type Docker from 'dockerode';
import type { Logger } from 'pino';
import { LABEL, labelFilter } from './labels';

export interface ContainerEvent {
  action: string;
  id: string;
  job: string;
  op: string;
  attempt: number;
}

/**
 * One engine event stream for all of this node's containers (die, start,
 * oom). When the stream breaks it reconnects and calls `onResync`, because
 * events in the gap are lost and state must be re-read with inspect.
 */
export class EngineEvents {
  private stream: NodeJS.ReadableStream | undefined;
  private closed = false;
  private buffered = '';

  constructor(
    private readonly docker: Docker,
    private readonly node: string,
    private readonly logger: Logger,
    private readonly onEvent: (event: ContainerEvent) => void,
    private readonly onResync: () => void,
  ) {}

  async start(): Promise<void> {
    const filters = { ...labelFilter(this.node), type: ['container' as const], event: ['start', 'die', 'oom'] };
    const stream = await this.docker.getEvents({ filters });
    this.stream = stream;
    stream.on('data', (chunk: Buffer) => this.receive(chunk));
    stream.on('error', () => undefined);
    stream.on('close', () => this.reconnect(stream));
    stream.on('end', () => this.reconnect(stream));
  }

  close(): void {
    this.closed = true;
    (this.stream as unknown as { destroy?: () => void } | undefined)?.destroy?.();
  }

  private receive(chunk: Buffer): void {
    this.buffered += chunk.toString('utf8');
    const lines = this.buffered.split('\n');
    this.buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) this.dispatch(line);
  }

  private dispatch(line: string): void {
    try {
      const raw = JSON.parse(line) as { Action?: string; id?: string; Actor?: { Attributes?: Record<string, string> } };
      const attrs = raw.Actor?.Attributes ?? {};
      if (!raw.Action || !raw.id || !attrs[LABEL.job] || !attrs[LABEL.op]) return;
      this.onEvent({ action: raw.Action.split(':')[0], id: raw.id, job: attrs[LABEL.job], op: attrs[LABEL.op], attempt: Number(attrs[LABEL.attempt] ?? 0) });
    } catch (err) {
      this.logger.warn({ err }, 'unreadable engine event');
    }
  }

  private reconnect(old: NodeJS.ReadableStream): void {
    if (this.closed || this.stream !== old) return;
    this.stream = undefined;
    this.buffered = '';
    const retry = (delay: number): void => {
      if (this.closed) return;
      this.start().then(
        () => this.onResync(),
        (err: unknown) => {
          this.logger.warn({ err, delay }, 'engine event stream lost; retrying');
          setTimeout(() => retry(Math.min(delay * 2, 5000)), delay).unref();
        },
      );
    };
    retry(200);
  }
}
