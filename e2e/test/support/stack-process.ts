/** `npm run stack` as a terminal runs it, for the tests of the launcher itself. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { waitFor } from '@ocg/testing';

const root = resolve(__dirname, '../../..');

export interface StackProcess {
  child: ChildProcess;
  /** Its console, a line each. */
  lines: string[];
  exited: Promise<number | null>;
}

/** The stack as a terminal runs it: the leader of its own process group. */
export function startStack(env: Record<string, string>): StackProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'tools/stack/main.ts')], {
    env: { ...process.env, TSX_TSCONFIG_PATH: join(root, 'tsconfig.json'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  for (const s of [child.stdout!, child.stderr!]) createInterface({ input: s }).on('line', (l) => lines.push(l));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, lines, exited };
}

/** Waits for a console line matching `pattern`; fails at once when the stack exits. */
export async function lineOf(stack: StackProcess, pattern: RegExp, what: string, timeoutMs = 280_000): Promise<string> {
  let gone = false;
  void stack.exited.then(() => (gone = true));
  return waitFor(
    () => {
      if (gone) throw new Error(`the stack exited:\n${stack.lines.slice(-30).join('\n')}`);
      return stack.lines.find((l) => pattern.test(l));
    },
    { timeoutMs, intervalMs: 250, what },
  );
}

/** Ctrl-C in the terminal: SIGINT to the whole group, and again a moment later. */
export async function ctrlC(stack: StackProcess): Promise<number | null> {
  process.kill(-stack.child.pid!, 'SIGINT');
  await new Promise((r) => setTimeout(r, 300));
  if (stack.child.exitCode === null) process.kill(-stack.child.pid!, 'SIGINT');
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the stack did not stop:\n${stack.lines.slice(-30).join('\n')}`)), 180_000).unref());
  return Promise.race([stack.exited, timeout]);
}
