/** Runs `ocg` in-process, as main() does for the real command, capturing what it prints and its exit code. */
import { Command } from 'commander';
import { buildProgram, main } from '../../src/main';

export interface Run {
  out: string;
  err: string;
  code: number;
}

export async function ocg(...args: string[]): Promise<Run> {
  const run: Run = { out: '', err: '', code: 0 };
  const outSpy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((run.out += String(chunk)), true));
  const errSpy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((run.err += String(chunk)), true));
  // The progress display draws a spinner on a terminal; tests read the plain lines.
  const tty = process.stderr.isTTY;
  process.stderr.isTTY = false;
  const program = new Command('ocg').exitOverride().configureOutput({ writeOut: (t) => (run.out += t), writeErr: (t) => (run.err += t) });
  process.exitCode = undefined;
  try {
    await main(['node', 'ocg', ...args], buildProgram(program));
  } finally {
    outSpy.mockRestore();
    errSpy.mockRestore();
    process.stderr.isTTY = tty;
  }
  run.code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return run;
}
