/**
 * The gateway's API path: GET /auth/scopes through the gateway (plain HTTP,
 * so the proxy is what is measured, not TLS) against the same request
 * straight to client-manager, on loopback, bounded in time, measured in the
 * same run. Prints requests/s, p99, the ratio and the CPU each process used a
 * request, twice:
 *
 * - shared cores: every process (load generator, gateway, client-manager)
 *   wherever the scheduler puts it, as before;
 * - gateway on its own core (`taskset`, Linux, at least 2 cores): the
 *   gateway alone on one core, the load generator and client-manager
 *   together on another, in the direct runs as in the gateway runs, as a
 *   gateway runs on cores of its own in deployment. The ratio then says
 *   whether the gateway's hop limits what the service behind it serves.
 *
 * Target: the gateway path at least 0.8x direct, checked on the pinned runs
 * when they can be made (on the shared ones otherwise, which the line says).
 *
 *   nx run gateway:bench   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_PROFILE_DIR, BENCH_PIN=0 to skip the pinned runs)
 */
import { execFileSync } from 'node:child_process';
import { freePorts, interleaved, launchServices, load, perCore, perCoreLine, profileEnv, ratioLine, testDatabase, testRedis, type Measured, runBench } from '@ocg/testing';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const measure = (url: string) => load(url, { connections, seconds });

/** The CPUs this process may run on (`taskset -pc`), or undefined where taskset is missing. */
function allowedCpus(): number[] | undefined {
  try {
    const list = execFileSync('taskset', ['-pc', String(process.pid)], { encoding: 'utf8' })
      .split(':')
      .pop()!
      .trim();
    return list.split(',').flatMap((part) => {
      const [from, to = from] = part.split('-').map(Number);
      return Array.from({ length: to - from + 1 }, (_, i) => from + i);
    });
  } catch {
    return undefined;
  }
}

/** Every thread of `pid` on `cpus` (a taskset list: `0`, `1-3`). */
function pin(pid: number | undefined, cpus: string): void {
  if (pid !== undefined) execFileSync('taskset', ['-a', '-pc', cpus, String(pid)], { stdio: 'ignore' });
}

/** `gateway 62 µs, client-manager 75 µs` of CPU a request, from the per-core numbers. */
function microsLine(per: Record<string, number | undefined>): string {
  return Object.entries(per)
    .map(([name, n]) => `${name} ${n === undefined ? '?' : (1e6 / n).toFixed(0)} µs`)
    .join(', ');
}

async function main(): Promise<void> {
  const db = await testDatabase();
  const redis = await testRedis();
  const ports = await freePorts(['gateway', 'client-manager', 'host-manager', 'deployment-manager']);
  const stack = await launchServices({ databaseUrl: db.url, redisUrl: redis.url, ports, logLevel: 'warn', onLine: () => undefined, env: profileEnv() });
  const cpus = allowedCpus();
  const pid = (name: string) => stack.processes.get(name)?.child.pid;
  try {
    const direct = `${stack.urls['client-manager']}/auth/scopes`;
    const viaGateway = `${stack.urls.gateway}/auth/scopes`;
    await measure(direct); // warm both paths: JIT, keep-alive sockets
    await measure(viaGateway);
    // The load generator (autocannon, in this process) is measured too: its CPU a request is the same on both paths.
    const run = () =>
      interleaved(rounds, {
        direct: () => perCore({ 'load generator': process.pid, 'client-manager': pid('client-manager') }, () => measure(direct), seconds),
        gateway: () => perCore({ 'load generator': process.pid, gateway: pid('gateway'), 'client-manager': pid('client-manager') }, () => measure(viaGateway), seconds),
      });
    const shared = await run();
    const canPin = process.env.BENCH_PIN !== '0' && cpus !== undefined && cpus.length >= 2;
    let pinned: Record<'direct' | 'gateway', Measured> | undefined;
    if (canPin) {
      const [own, rest] = [String(cpus[cpus.length - 1]), String(cpus[0])];
      pin(pid('gateway'), own);
      for (const p of [process.pid, pid('client-manager')]) pin(p, rest);
      try {
        pinned = await run();
      } finally {
        for (const p of [process.pid, pid('gateway'), pid('client-manager')]) pin(p, cpus.join(','));
      }
    }
    console.log(`bench gateway: GET /auth/scopes, ${connections} connections, ${seconds} s each, best of ${rounds} interleaved rounds`);
    const report = (title: string, best: Record<'direct' | 'gateway', Measured>, checked: boolean) => {
      const [d, g] = [best.direct.load, best.gateway.load];
      console.log(`  ${title}`);
      console.log(`    direct to client-manager: ${d.rps.toFixed(0)} req/s, p99 ${d.p99} ms; CPU a request: ${microsLine(best.direct.perCore)}`);
      console.log(`    through the gateway:      ${g.rps.toFixed(0)} req/s, p99 ${g.p99} ms; CPU a request: ${microsLine(best.gateway.perCore)}`);
      console.log(`    CPU through the gateway:  ${perCoreLine(best.gateway.perCore)}`);
      const ratio = checked
        ? ratioLine(g.rps, d.rps, 0.8)
        : `${(g.rps / d.rps).toFixed(2)}x (not checked: with all three processes on the same cores this is mostly how they share them)`;
      console.log(`    ratio gateway/direct:     ${ratio}`);
    };
    report('shared cores (load generator, gateway and client-manager anywhere):', shared, pinned === undefined);
    if (pinned) report(`gateway on a core of its own (cpu ${cpus![cpus!.length - 1]}; load generator and client-manager on cpu ${cpus![0]}, in both runs):`, pinned, true);
    else console.log('  gateway on a core of its own: not measured (needs taskset and 2 cores, or BENCH_PIN=0); the shared-core ratio is the one checked');
  } finally {
    await stack.stop();
    await db.drop();
  }
}

runBench(main);
