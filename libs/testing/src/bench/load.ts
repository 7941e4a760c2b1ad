/**
 * What the `bench` targets share: a bounded autocannon run, a bare express
 * server as the baseline, and the verdict line every target prints.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../ports';
import { startTsProcess, type ManagedProcess } from '../stack/process';
import { waitFor } from '../wait';

export interface Load {
  rps: number;
  p50: number;
  p99: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}

/** One autocannon run; any non-2xx answer or socket error fails the bench (a fast 429 is no result). */
export async function load(url: string, opts: LoadOptions): Promise<Load> {
  const result = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    method: opts.method ?? 'GET',
    body: opts.body,
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
  });
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** Runs a bench's main function: exit 0 when it ends (its servers' handles may linger), the error and exit 1 when it fails. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/** `OK` or `BELOW TARGET` (or `ABOVE TARGET` for a bound that must not be passed). */
export function verdict(pass: boolean, failing: 'BELOW TARGET' | 'ABOVE TARGET' = 'BELOW TARGET'): string {
  return pass ? 'OK' : failing;
}

/** `0.72x (target >= 0.60x) OK` */
export function ratioLine(value: number, baseline: number, target: number): string {
  const ratio = value / baseline;
  return `${ratio.toFixed(2)}x (target >= ${target.toFixed(2)}x) ${verdict(ratio >= target)}`;
}

export interface BareServer {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * A bare express app in its own process, like the services, answering every
 * GET with `body` as application/json: the floor a service on express is
 * measured against.
 */
export async function startBareServer(body: string): Promise<BareServer> {
  const port = await freePort();
  const proc: ManagedProcess = startTsProcess('bare-express', resolve(__dirname, 'bare-server.ts'), { PORT: String(port), BARE_BODY: body }, 0, () => undefined);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(url).catch(() => undefined))?.ok, { timeoutMs: 30000, intervalMs: 100, what: 'bare express server' });
  return { url, pid: proc.child.pid, stop: () => proc.stop() };
}

/**
 * Node options that make each service write a CPU profile on exit into
 * `BENCH_PROFILE_DIR` (open them in Chrome DevTools or speedscope); empty
 * when the variable is unset.
 */
export function profileEnv(): Record<string, string> {
  const dir = process.env.BENCH_PROFILE_DIR;
  return dir ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${resolve(dir)}`.trim() } : {};
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  const split = cpuSplitOf(pid);
  return split && split.user + split.system;
}

/** CPU seconds a process has used so far in its own code (user) and in the kernel on its behalf (system), from /proc (Linux); undefined elsewhere. */
export function cpuSplitOf(pid: number | undefined): { user: number; system: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return undefined;
  }
}

/**
 * Requests per second one core of each process sustains during `run`: the
 * requests served divided by the CPU time each process used, so the other
 * work on the machine (which stretches wall time) does not count.
 */
export interface Measured {
  load: Load;
  /** Requests per second per core, by process name. */
  perCore: Record<string, number | undefined>;
}

export async function perCore(pids: Record<string, number | undefined>, run: () => Promise<Load>, seconds: number): Promise<Measured> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSecondsOf(pid)]));
  const result = await run();
  const requests = result.rps * seconds;
  const per: Record<string, number | undefined> = {};
  for (const [name, pid] of Object.entries(pids)) {
    const start = before[name];
    const end = cpuSecondsOf(pid);
    per[name] = start === undefined || end === undefined || end <= start ? undefined : requests / (end - start);
  }
  return { load: result, perCore: per };
}

/** `client-manager 4100/core, gateway 2900/core` */
export function perCoreLine(per: Record<string, number | undefined>): string {
  return Object.entries(per)
    .map(([name, n]) => `${name} ${n === undefined ? '?' : n.toFixed(0)} req/s per core`)
    .join(', ');
}

/**
 * Runs the steps in turn, `rounds` times, and keeps each step's best round
 * (highest requests/s, with that round's latencies and CPU). On a machine
 * shared with other work a burst of it lands on one round of one step, not
 * on the comparison: baseline and service are measured side by side.
 */
export async function interleaved<K extends string>(rounds: number, steps: Record<K, () => Promise<Measured>>): Promise<Record<K, Measured>> {
  const best = {} as Record<K, Measured>;
  for (let i = 0; i < rounds; i++) {
    for (const name of Object.keys(steps) as K[]) {
      const m = await steps[name]();
      if (best[name] === undefined || m.load.rps > best[name].load.rps) best[name] = m;
    }
  }
  return best;
}
