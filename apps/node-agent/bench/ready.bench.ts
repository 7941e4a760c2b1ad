/**
 * Time from "run this job" to its first ready endpoint, for a one-op busybox
 * httpd job, against the plain-Docker baseline measured in the same run:
 * `docker run -d` of the same image and command, `docker inspect` for its
 * address, then polling the port every 10 ms. Medians over several rounds.
 * Target: agent <= 1.3 x baseline + 300 ms.
 *
 * The baseline gets a network made beforehand (untimed); the agent makes one
 * per job inside its timing. `npx tsx apps/node-agent/bench/ready.bench.ts [rounds]`
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import bs58 from 'bs58';
import { generateWallet } from '@ocg/auth';
import { createLogger } from '@ocg/http';
import { normalize, type JobDefinition } from '@ocg/job-definition';
import { NodeAgent } from '../src/agent';
import { loadConfig } from '../src/config';
import { createDocker } from '../src/docker/client';
import type { EndpointStatus } from '../src/executor/types';
import { LocalJobSource } from '../src/local-source';
import type { Reporter } from '../src/seam';
import { BUSYBOX_IMAGE, ensureBusyboxImage, requireDocker } from '../test/support/images';

const ROUNDS = Number(process.argv[2] ?? 7);
const COMMAND = ['sh', '-c', 'mkdir -p /w && echo ok > /w/index.html && exec httpd -f -p 8080 -h /w'];
const BASELINE_NETWORK = `ocg-bench-baseline-${randomBytes(3).toString('hex')}`;

/** Resolves the wait for each job's first ONLINE endpoint. */
class ReadyWatcher implements Reporter {
  private readonly waiting = new Map<string, () => void>();
  wait(job: string): Promise<void> {
    return new Promise((resolve) => this.waiting.set(job, resolve));
  }
  endpointChanged(job: string, _op: string, endpoint: EndpointStatus): void {
    if (endpoint.status === 'ONLINE') this.waiting.get(job)?.();
  }
  jobStarted(): void {
    // Only readiness is timed.
  }
  opChanged(): void {
    // Only readiness is timed.
  }
  async jobEnded(): Promise<void> {
    // Only readiness is timed.
  }
}

function docker(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => execFile('docker', args, (err, out, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(out.trim()))));
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => (socket.destroy(), resolve(false)));
  });
}

async function baselineRound(): Promise<number> {
  const t0 = performance.now();
  const id = await docker('run', '-d', '--network', BASELINE_NETWORK, BUSYBOX_IMAGE, ...COMMAND);
  const ip = await docker('inspect', '-f', `{{(index .NetworkSettings.Networks "${BASELINE_NETWORK}").IPAddress}}`, id);
  while (!(await connects(ip, 8080))) await new Promise((r) => setTimeout(r, 10));
  const ms = performance.now() - t0;
  await docker('rm', '-f', id);
  return ms;
}

async function agentRound(agent: NodeAgent, source: LocalJobSource, watcher: ReadyWatcher): Promise<number> {
  const job = bs58.encode(randomBytes(32));
  const definition = normalize({
    version: '0.1',
    type: 'container',
    ops: [{ type: 'container/run', id: 'web', args: { image: BUSYBOX_IMAGE, cmd: COMMAND, expose: 8080 } }],
  } as JobDefinition);
  const ready = watcher.wait(job);
  const t0 = performance.now();
  await source.submit({ job, poster: generateWallet().address, definition, deadline: Date.now() + 600_000 });
  await ready;
  const ms = performance.now() - t0;
  await agent.executor.stopAndWait(job, 'bench round done');
  return ms;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  const engine = createDocker('/var/run/docker.sock');
  await requireDocker(engine);
  await ensureBusyboxImage(engine);
  const config = {
    ...loadConfig({ API_PORT: '0', INGRESS_PORT: '0', LOG_LEVEL: 'warn', NODE_GPUS: 'false', STOP_GRACE_SECONDS: '1' }),
    NODE_ID: `bench-${randomBytes(3).toString('hex')}`,
  };
  const watcher = new ReadyWatcher();
  const source = new LocalJobSource();
  const agent = await NodeAgent.start(config, createLogger({ service: 'node-agent-bench', level: 'warn' }), { source, reporter: watcher, docker: engine });
  await docker('network', 'create', BASELINE_NETWORK);
  try {
    // One warm-up each (page cache, first network of the session), then alternate so drift hits both.
    await baselineRound();
    await agentRound(agent, source, watcher);
    const base: number[] = [];
    const ours: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      base.push(await baselineRound());
      ours.push(await agentRound(agent, source, watcher));
    }
    report(base, ours);
  } finally {
    await docker('network', 'rm', BASELINE_NETWORK).catch(() => undefined);
    await agent.close();
  }
}

function report(base: number[], ours: number[]): void {
  const b = median(base);
  const a = median(ours);
  const budget = 1.3 * b + 300;
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' ');
  process.stdout.write(
    [
      `rounds: ${base.length} (after one warm-up each)`,
      `docker run + poll  median ${b.toFixed(0)} ms   [${fmt(base)}]`,
      `node agent         median ${a.toFixed(0)} ms   [${fmt(ours)}]`,
      `ratio agent/baseline: ${(a / b).toFixed(2)}x   target <= 1.3x + 300 ms = ${budget.toFixed(0)} ms: ${a <= budget ? 'met' : 'MISSED'}`,
      '',
    ].join('\n'),
  );
  if (a > budget) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
