/**
 * Waiting with a sign of life on stderr (stdout stays the result): a spinner
 * with elapsed seconds on a terminal, a plain line at each change and every
 * few seconds otherwise, so logs of scripts and CI show progress without
 * control codes.
 */
import { CliError } from './output';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** How often a non-terminal gets a line. */
const LINE_EVERY_MS = 5_000;

export interface WaitOptions {
  /** What is waited for, e.g. `waiting for a node to run the job`. */
  what: string;
  timeoutMs: number;
  intervalMs: number;
  /** Said when the time is up. */
  timeoutMessage: (seconds: number, last: string) => string;
  /** Off a terminal, no status lines (the caller prints lines of its own). */
  quietOffTerminal?: boolean;
}

/**
 * Calls `check` every interval until it answers a value. `check` may report a
 * status word (`QUEUED`, `HTTP 404`) shown beside the elapsed time.
 */
export async function waitWithProgress<T>(options: WaitOptions, check: (status: (text: string) => void) => Promise<T | undefined>): Promise<T> {
  const started = Date.now();
  const shown = display(options.what, started);
  let last = '';
  try {
    for (;;) {
      const value = await check((text) => (last = text));
      if (value !== undefined) return value;
      shown.update(last);
      if (Date.now() - started >= options.timeoutMs) throw new CliError(options.timeoutMessage(Math.round((Date.now() - started) / 1000), last));
      await new Promise((r) => setTimeout(r, Math.min(options.intervalMs, Math.max(0, started + options.timeoutMs - Date.now()))));
    }
  } finally {
    shown.stop();
  }
}

/**
 * Waits while `follow` (events from the service, no polling) reports status
 * words, until it answers a value; the timeout aborts it.
 */
export async function waitWithEvents<T>(options: Omit<WaitOptions, 'intervalMs'>, follow: (status: (text: string) => void, signal: AbortSignal) => Promise<T>): Promise<T> {
  const started = Date.now();
  const shown = options.quietOffTerminal && !process.stderr.isTTY ? { update: () => undefined, stop: () => undefined } : display(options.what, started);
  const stop = new AbortController();
  let last = '';
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    if (!Number.isFinite(options.timeoutMs)) return;
    timer = setTimeout(() => {
      reject(new CliError(options.timeoutMessage(Math.round((Date.now() - started) / 1000), last)));
      stop.abort(); // after: what follow says on being stopped comes second
    }, options.timeoutMs);
  });
  try {
    const status = (text: string) => shown.update((last = text));
    return await Promise.race([follow(status, stop.signal), timedOut]);
  } finally {
    clearTimeout(timer);
    stop.abort();
    shown.stop();
  }
}

/** Lines a person reads while something goes on (a spinner's line on a terminal is replaced, so it is cleared first). */
export function note(text: string): void {
  process.stderr.write(process.stderr.isTTY ? `\r\x1b[2K${text}\n` : `${text}\n`);
}

function display(what: string, started: number): { update(status: string): void; stop(): void } {
  const stream = process.stderr;
  const elapsed = () => `${Math.floor((Date.now() - started) / 1000)} s`;
  let status = '';
  const text = () => `${what}${status ? ` (${status})` : ''}, ${elapsed()}`;
  if (!stream.isTTY) {
    let next = 0;
    return {
      update(s) {
        const changed = s !== status;
        status = s;
        if (!changed && Date.now() < next) return;
        next = Date.now() + LINE_EVERY_MS;
        stream.write(`${text()}\n`);
      },
      stop: () => undefined,
    };
  }
  let frame = 0;
  const draw = () => stream.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text()}`);
  draw();
  const timer = setInterval(draw, 100);
  return {
    update: (s) => void (status = s),
    stop() {
      clearInterval(timer);
      stream.write('\r\x1b[2K');
    },
  };
}
