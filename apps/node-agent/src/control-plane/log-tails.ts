import type { JobLogLine } from '@ocg/contracts';
import type { LogBuffer } from '../executor/log-buffer';

/** The job page shows this many last lines per op... */
export const TAIL_LINES = 20;
/** ...each cut at this many characters (the report's validation allows no more). */
export const TAIL_LINE_CHARS = 500;

/** An op's output: the executor's buffer; it may throw, or answer undefined, once the job or op is gone. */
export type LogSource = (job: string, op: string) => LogBuffer | undefined;

/**
 * Whose output grew since its tail was last taken. Lines carry a sequence
 * number per op, so growth is a comparison with the last one taken; an op
 * whose log did not move costs the control plane nothing.
 */
export class LogTails {
  private source: LogSource | undefined;
  /** job → op → sequence number of the last line taken. */
  private readonly taken = new Map<string, Map<string, number>>();

  read(source: LogSource): void {
    this.source = source;
  }

  /** The op's last lines when they grew since the last time they were taken; undefined otherwise. */
  grown(job: string, op: string): JobLogLine[] | undefined {
    const lines = this.buffer(job, op)?.lines({ tail: TAIL_LINES }) ?? [];
    const last = lines.at(-1)?.seq ?? 0;
    let ops = this.taken.get(job);
    if (last <= (ops?.get(op) ?? 0)) return undefined;
    if (!ops) this.taken.set(job, (ops = new Map()));
    ops.set(op, last);
    return lines.map((l) => ({ stream: l.stream, text: l.text.length > TAIL_LINE_CHARS ? l.text.slice(0, TAIL_LINE_CHARS) : l.text }));
  }

  forget(job: string): void {
    this.taken.delete(job);
  }

  private buffer(job: string, op: string): LogBuffer | undefined {
    try {
      return this.source?.(job, op);
    } catch {
      return undefined; // the job or op is gone: nothing to tell
    }
  }
}
