/**
 * Waiting with a sign of life on stderr (stdout stays the result): a spinner
 * with elapsed seconds on a terminal, a plain line every few seconds
 * otherwise, so logs of scripts and CI show progress without control codes.
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

function display(what: string, started: number): { update(status: string): void; stop(): void } {
  const stream = process.stderr;
  const elapsed = () => `${Math.floor((Date.now() - started) / 1000)} s`;
  let status = '';
  const text = () => `${what}${status ? ` (${status})` : ''}, ${elapsed()}`;
  if (!stream.isTTY) {
    let next = 0;
    return {
      update(s) {
        status = s;
        if (Date.now() < next) return;
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
