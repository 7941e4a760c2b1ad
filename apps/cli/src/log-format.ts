/** How `ocg job logs` prints a line: local time, the op (one colour each on a terminal), the stream when not stdout, the text. */
import type { NodeLogLine } from '@ocg/contracts';

const ESC = '\x1b[';
const RESET = `${ESC}0m`;
const DIM = `${ESC}2m`;
const OP_COLOURS = [36, 32, 35, 34, 33, 96, 92, 95, 94, 93].map((code) => `${ESC}${code}m`);
const STREAM_COLOURS: Record<string, string> = { stderr: `${ESC}31m`, nodeerr: `${ESC}33m` };

export interface LogLineFormat {
  line(op: string, line: NodeLogLine): string;
  /** What ocg itself says between lines (a reconnect, missed lines). */
  note(text: string): string;
}

export function logLineFormat(ops: string[], opts: { colour: boolean }): LogLineFormat {
  const width = Math.max(0, ...ops.map((op) => op.length));
  const paint = (code: string, text: string) => (opts.colour ? `${code}${text}${RESET}` : text);
  const colourOf = (op: string) => OP_COLOURS[Math.max(0, ops.indexOf(op)) % OP_COLOURS.length];
  return {
    line(op, line) {
      const stream = line.stream === 'stdout' ? '' : `${paint(STREAM_COLOURS[line.stream] ?? '', `[${line.stream}]`)} `;
      return `${paint(DIM, clock(line.time))} ${paint(colourOf(op), op.padEnd(width))} | ${stream}${line.text}`;
    },
    note: (text) => paint(DIM, `ocg: ${text}`),
  };
}

/** `2025-03-01 14:05:09.123` in the local zone (the node's time has nanoseconds; milliseconds are enough to read). */
function clock(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** Colours on a terminal only, and never with NO_COLOR set (no-color.org) or TERM=dumb. */
export function colourWanted(terminal: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return terminal && !env.NO_COLOR && env.TERM !== 'dumb';
}
