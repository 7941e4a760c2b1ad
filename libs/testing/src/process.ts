import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface KeepOptions {
  command: string;
  args: string[];
  uid?: number;
  gid?: number;
  cwd?: string;
  /** Added to the inherited environment. */
  env?: Record<string, string>;
  /** Signal that asks the server to shut down cleanly (postgres: SIGINT = fast shutdown). */
  stopSignal?: NodeJS.Signals;
  stopTimeoutMs?: number;
  /** Append the server's output here; otherwise the last few KiB are kept in memory for error messages. */
  logFile?: string;
  /** Shared-server mode: stop when no pid named by a file in this directory is alive. */
  usersDir?: string;
  /** Paths deleted when the owner dies without stopping the server (temporary data). */
  removeWhenOrphaned?: string[];
}

export interface KeptProcess {
  /** The keeper's pid (the server is its only child). */
  pid: number;
  exited: Promise<number | null>;
  running(): boolean;
  /** Stops the server and waits until it has exited. */
  stop(): Promise<void>;
  /** The server's recent output, for error messages. */
  output(): string;
}

const KEEPER = path.join(__dirname, 'keeper.js');
const TAIL_BYTES = 8192;

/**
 * Starts a server under a small keeper process (keeper.js). The keeper lives in
 * its own process group, so a terminal Ctrl-C reaches only the test command and
 * the owner decides the shutdown order; it stops the server when the owner dies.
 */
export function spawnKept(opts: KeepOptions): KeptProcess {
  const out = opts.logFile ? openLog(opts.logFile) : 'pipe';
  const cfg = { ...opts, logFile: undefined };
  // The command's name in argv only labels the keeper in `ps`; see keeper.js.
  const keeper = spawn(process.execPath, [KEEPER, path.basename(opts.command)], {
    env: { ...process.env, OCG_KEEPER: JSON.stringify(cfg) },
    detached: true,
    stdio: [opts.usersDir ? 'ignore' : 'pipe', out, out],
  });
  if (typeof out === 'number') fs.closeSync(out);
  let tail = '';
  for (const s of [keeper.stdout, keeper.stderr]) {
    s?.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-TAIL_BYTES)));
  }
  let done = false;
  const exited = new Promise<number | null>((resolve) =>
    keeper.once('exit', (code) => {
      done = true;
      resolve(code);
    }),
  );
  unrefAll(keeper);
  return {
    pid: keeper.pid ?? -1,
    exited,
    running: () => !done,
    output: () => (opts.logFile ? readTail(opts.logFile) : tail),
    async stop() {
      if (done) return;
      keeper.ref(); // an awaited stop must keep the owner alive until the server is gone
      keeper.kill('SIGTERM');
      await exited;
    },
  };
}

/** Lets the owner exit while the server runs; the keeper then cleans up. */
export function unrefAll(child: ChildProcess): void {
  child.unref();
  for (const s of [child.stdin, child.stdout, child.stderr]) {
    (s as unknown as { unref?: () => void } | null)?.unref?.();
  }
}

function openLog(file: string): number {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return fs.openSync(file, 'a');
}

function readTail(file: string): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const start = Math.max(0, fs.fstatSync(fd).size - TAIL_BYTES);
      const buf = Buffer.alloc(TAIL_BYTES);
      return buf.subarray(0, fs.readSync(fd, buf, 0, TAIL_BYTES, start)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** Finds an executable on PATH (plus the sbin directories a non-login root shell may miss). */
export function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  for (const dir of dirs.filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/** Whether a process exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z';
  } catch {
    return true;
  }
}
