import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const COLORS = [36, 35, 33, 32, 34, 31];
const ROOT_TSCONFIG = resolve(__dirname, '../../../../tsconfig.json');
const END_WITH_PARENT = resolve(__dirname, 'end-with-parent.ts');
const useColor = process.stdout.isTTY && !process.env.NO_COLOR;

/** One pino JSON line as `name | level message {extra}`; other lines as they are. A longer extra is cut at `maxExtra` characters. */
function formatLine(name: string, color: number, line: string, maxExtra = Infinity): string {
  const label = useColor ? `\x1b[${color}m${name.padEnd(18)}\x1b[0m|` : `${name.padEnd(18)}|`;
  try {
    const { level, msg, time: _t, pid: _p, hostname: _h, service: _s, ...rest } = JSON.parse(line);
    const levels: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
    let extra = Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '';
    if (extra.length > maxExtra) extra = `${extra.slice(0, maxExtra)}…`;
    return `${label} ${levels[level] ?? level} ${msg ?? ''}${extra}`;
  } catch {
    return `${label} ${line}`;
  }
}

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stop(graceMs?: number): Promise<void>;
}

export interface TsProcessOptions {
  /**
   * Its own process group: signals sent to the caller's group (Ctrl-C in a
   * terminal) do not reach it, so the caller decides when and in which order
   * its children stop.
   */
  detached?: boolean;
  /** Every line of its output is appended here, as written (JSON lines stay JSON). */
  logFile?: string;
  /** Only the lines this accepts reach `onLine` (default: all); their extra fields are shortened, the file has them whole. */
  show?: (line: string) => boolean;
}

/** How long the extra fields of a line shown beside a log file may be. */
const SHOWN_EXTRA = 240;

/** Starts a TypeScript entry under tsx, prefixing its output with its name. */
export function startTsProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
  index: number,
  onLine: (line: string) => void = console.log,
  opts: TsProcessOptions = {},
): ManagedProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', END_WITH_PARENT, entry], {
    detached: opts.detached ?? false,
    // The root tsconfig covers every app (paths, decorators) whatever the caller's working directory.
    env: { TSX_TSCONFIG_PATH: ROOT_TSCONFIG, ...process.env, ...env },
    // Its standard input is a pipe only this process holds: when this process dies, the child stops itself (end-with-parent.ts).
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  (child.stdin as unknown as { unref(): void }).unref();
  const color = COLORS[index % COLORS.length];
  const file = opts.logFile ? openLog(opts.logFile) : undefined;
  const show = opts.show ?? (() => true);
  const maxExtra = opts.show ? SHOWN_EXTRA : Infinity;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      file?.write(`${line}\n`);
      if (show(line)) onLine(formatLine(name, color, line, maxExtra));
    });
  }
  // After every line of its output: 'close' follows the end of its streams.
  child.once('close', () => file?.end());
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (graceMs = 10000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { name, child, exited, stop };
}

/** An append stream that reports a failure once on the console instead of crashing the caller. */
function openLog(file: string): WriteStream {
  mkdirSync(dirname(file), { recursive: true });
  const stream = createWriteStream(file, { flags: 'a' });
  let reported = false;
  stream.on('error', (err) => {
    if (!reported) console.error(`cannot write ${file}: ${err.message}`);
    reported = true;
  });
  return stream;
}
