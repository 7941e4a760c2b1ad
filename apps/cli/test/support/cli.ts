/** Runs `ocg` in-process, as main() does for the real command, capturing what it prints and its exit code. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Command } from 'commander';
import { buildProgram, main } from '../../src/main';

export interface Run {
  out: string;
  err: string;
  code: number;
}

type Capture = Run & { seen: (run: Run) => void };

/** Which run a write belongs to, so runs that overlap (a watch and the command it watches) each get their own output. */
const running = new AsyncLocalStorage<Capture>();
let capturing = 0;
let release: () => void = () => undefined;

function capture(): void {
  if (capturing++ > 0) return;
  const into = (key: 'out' | 'err') => (chunk: string | Uint8Array) => {
    const run = running.getStore();
    if (run) {
      run[key] += String(chunk);
      run.seen(run);
    }
    return true;
  };
  const outSpy = jest.spyOn(process.stdout, 'write').mockImplementation(into('out'));
  const errSpy = jest.spyOn(process.stderr, 'write').mockImplementation(into('err'));
  // The progress display draws a spinner on a terminal; tests read the plain lines.
  const tty = process.stderr.isTTY;
  process.stderr.isTTY = false;
  release = () => {
    outSpy.mockRestore();
    errSpy.mockRestore();
    process.stderr.isTTY = tty;
  };
}

export function ocg(...args: string[]): Promise<Run> {
  return ocgSeeing(() => undefined, ...args);
}

/** `ocg`, telling `seen` each time it prints: for a command that runs until something the test does next. */
export async function ocgSeeing(seen: (run: Run) => void, ...args: string[]): Promise<Run> {
  const run: Capture = { out: '', err: '', code: 0, seen };
  const program = new Command('ocg').exitOverride().configureOutput({ writeOut: (t) => (run.out += t), writeErr: (t) => (run.err += t) });
  capture();
  process.exitCode = undefined;
  try {
    await running.run(run, () => main(['node', 'ocg', ...args], buildProgram(program)));
  } finally {
    if (--capturing === 0) release();
  }
  run.code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { out: run.out, err: run.err, code: run.code };
}
