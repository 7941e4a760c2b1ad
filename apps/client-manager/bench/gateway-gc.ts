/**
 * Garbage collection and CPU per request of `POST /auth/validate-api-key`
 * (warm key) through the HTTPS gateway, the bench's stack (client-manager
 * and the gateway under tsx, logs at warn): each round sends GC_REQUESTS
 * requests over GC_CONNECTIONS connections and prints, per process, its CPU
 * a request (`/proc`) and its collections per 10,000 requests (count, total
 * and longest pause, young and full), from `gc-probe.mts` preloaded into
 * both services. On a shared machine these say more than latencies.
 *
 *   tsx tools/testenv/run.ts --no-docker -- tsx apps/client-manager/bench/gateway-gc.ts
 *   (GC_REQUESTS, GC_ROUNDS, GC_CONNECTIONS; GC_TARGET=direct: straight to client-manager;
 *   GC_HEAP=1: sampling heap profiles of what outlived a young collection, in GC_DIR)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { cpuSecondsOf, runBench } from '@ocg/testing';
import { startHttpsStack } from './https-stack';

const requests = Number(process.env.GC_REQUESTS ?? 20000);
const rounds = Number(process.env.GC_ROUNDS ?? 3);
const connections = Number(process.env.GC_CONNECTIONS ?? 16);
const direct = process.env.GC_TARGET === 'direct';
const SERVICES = ['client-manager', 'gateway'];

interface Pauses {
  n: number;
  ms: number;
  max: number;
}
interface Probed {
  gc: Record<string, Pauses | undefined>;
  cpuUs: number;
}

async function probed(dir: string, pid: number): Promise<Probed> {
  const file = join(dir, `${pid}.json`);
  // The probe may still be writing the file: read until it parses.
  for (let i = 0; ; i++) {
    if (existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as Probed;
      } catch (err) {
        if (i >= 600) throw err;
      }
    } else if (i >= 600) throw new Error(`no probe output from ${pid}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const per10k = (p: Pauses | undefined, n: number): string => (p ? `${((p.n * 1e4) / n).toFixed(1)} (${((p.ms * 1e4) / n).toFixed(0)} ms, longest ${p.max.toFixed(1)} ms)` : '0');

async function main(): Promise<void> {
  const dir = process.env.GC_DIR ? resolve(process.env.GC_DIR) : mkdtempSync(join(tmpdir(), 'ocg-gc-'));
  const probe = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${resolve(__dirname, 'gc-probe.mts')}`.trim(), PROBE_DIR: dir, PROBE_HEAP: process.env.GC_HEAP ?? '' };
  const { stack, direct: cmUrl, gateway, apiKey, stop } = await startHttpsStack(probe);
  try {
    const body = JSON.stringify({ apiKey });
    const url = `${direct ? cmUrl : gateway}/auth/validate-api-key`;
    const run = (amount: number) => autocannon({ url, amount, connections, method: 'POST', body, headers: { 'content-type': 'application/json' } });
    await run(10000); // JIT, the key's memory, keep-alive sockets
    const pids = Object.fromEntries(SERVICES.map((name) => [name, stack.processes.get(name)?.child.pid ?? 0]));
    console.log(`gc: validate-api-key ${direct ? 'direct to client-manager' : 'through the HTTPS gateway'}, ${connections} connections, ${requests} requests a round`);
    for (let round = 1; round <= rounds; round++) {
      const load = loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
      for (const pid of Object.values(pids)) {
        rmSync(join(dir, `${pid}.json`), { force: true });
        process.kill(pid, 'SIGUSR2');
      }
      const cpu = Object.values(pids).map((pid) => cpuSecondsOf(pid) ?? NaN);
      const result = await run(requests);
      const used = Object.values(pids).map((pid, i) => (cpuSecondsOf(pid) ?? NaN) - cpu[i]);
      for (const pid of Object.values(pids)) process.kill(pid, 'SIGUSR2');
      const n = result['2xx'];
      if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
      console.log(
        `  round ${round} (load ${load}): ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
      );
      for (const [i, [name, pid]] of Object.entries(pids).entries()) {
        const p = await probed(dir, pid);
        console.log(`    ${name.padEnd(15)} ${((used[i] * 1e6) / n).toFixed(1)} µs a request; per 10,000: young ${per10k(p.gc.minor, n)}, full ${per10k(p.gc.major, n)}`);
      }
    }
    if (process.env.GC_HEAP) console.log(`  heap profiles in ${dir}`);
  } finally {
    await stop();
    if (!process.env.GC_DIR) rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
