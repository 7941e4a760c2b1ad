/**
 * CPU time per request of the node ingress alone, beside bare proxies: each
 * proxy runs in a child process of its own (so only its work is counted, from
 * its own `process.cpuUsage()`), in front of a trivial origin in this process
 * answering a 25-byte body, and is loaded with `BENCH_REQUESTS` (10,000)
 * keep-alive GETs over `BENCH_CONNECTIONS` (16) loopback connections, after
 * 2,000 of warm-up. Proxies measured, interleaved for `BENCH_ROUNDS` (3)
 * rounds (every round printed, lowest first):
 *   relay    `createIngress` behind `listen` with its connections relayed, as
 *            the agent serves it (ADR 0084: a job host routed by the real host
 *            rules and the executor's lookup, per-job metrics counted)
 *   ingress  the same through the HTTP server (`INGRESS_RELAY=false`)
 *   forward  a bare node:http server calling `forward` (no host rules, metrics or `listen`)
 *   undici   a bare node:http server dispatching over an undici Agent
 *   http     a bare node:http server piping over node's keep-alive agent
 *   baseline the ingress of the checkout at `BENCH_BASELINE_ROOT` (when set), for
 *            before/after comparisons in one run
 * `BENCH_PROXIES=ingress,baseline` picks some. `BENCH_AS_GATEWAY=1` sends each request with the headers
 * the gateway adds (`x-forwarded-*`, a request id, a trace context), as the node gets them behind it. `BENCH_CPU_PROF=<dir>` writes a V8 CPU profile of each proxy process over
 * the measured rounds (`ingress-cpu-<proxy>.cpuprofile`).
 * No Docker, no database: `npx tsx apps/node-agent/bench/ingress-cpu.bench.ts`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { Agent, Pool } from 'undici';
import pino from 'pino';
import { forward, listen, Metrics, upstreamAgent } from '@ocg/http';
import { Executor } from '../src/executor/executor';
import { createIngress, type Ingress } from '../src/ingress/server';
import { NodeMetrics } from '../src/node-metrics';
import { runBench } from '@ocg/testing';

const BODY = 'Hello from a fast origin\n';
const JOB = '7xkq3b9w2mfh8c1dzr5tn4vpyl6gs0ej';
const ALL = ['relay', 'ingress', 'forward', 'undici', 'http'] as const;
type Variant = (typeof ALL)[number] | 'baseline';
/** Another checkout (e.g. `git worktree add /tmp/base main`): its ingress is measured too, as `baseline`. */
const baselineRoot = process.env.BENCH_BASELINE_ROOT;
const VARIANTS: Variant[] = process.env.BENCH_PROXIES ? (process.env.BENCH_PROXIES.split(',') as Variant[]) : [...ALL, ...(baselineRoot ? ['baseline' as const] : [])];

const requests = Number(process.env.BENCH_REQUESTS ?? 10_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** The request's headers: the job host, and with BENCH_AS_GATEWAY what the gateway's relay adds to every request. */
const HEADERS: Record<string, string> = {
  host: `${JOB}.node.localhost:8091`,
  ...(process.env.BENCH_AS_GATEWAY === '1' && {
    'x-forwarded-for': '127.0.0.1',
    'x-forwarded-host': `${JOB}.node.localhost:8443`,
    'x-forwarded-proto': 'https',
    'x-request-id': '0d5b1f0c-6c1e-4a39-9a51-5bb0f3f3f0a1',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  }),
};

/** The proxy under test, in the child: listens on a free port and answers `cpu` messages with its CPU time so far. */
async function serve(variant: Variant, originPort: number): Promise<void> {
  const ingress = variant === 'relay' ? nodeIngress(originPort) : undefined;
  const handler = ingress
    ? ingress.handle
    : variant === 'baseline'
      ? baselineHandler(originPort)
      : { ingress: (port: number) => nodeIngress(port).handle, forward: forwardHandler, undici: undiciHandler, http: httpHandler }[
          variant as Exclude<Variant, 'relay' | 'baseline'>
        ](originPort);
  const serveWith = variant === 'baseline' ? (require(resolve(baselineRoot!, 'libs/http/src/server')) as { listen: typeof listen }).listen : listen;
  const server = ['ingress', 'baseline', 'relay'].includes(variant)
    ? (await serveWith(handler, { host: '127.0.0.1', port: 0 })).server
    : http.createServer(handler).listen(0, '127.0.0.1');
  ingress?.relay(server);
  if (!server.listening) await new Promise((done) => server.once('listening', done));
  const profiler = new Session();
  process.on('message', (m) => {
    if (m === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send!({ cpu: user + system });
    } else if (m === 'profile') {
      profiler.connect();
      profiler.post('Profiler.enable', () => profiler.post('Profiler.start', () => process.send!({ profiling: true })));
    } else if (m === 'exit') {
      if (!process.env.BENCH_CPU_PROF) process.exit(0);
      profiler.post('Profiler.stop', (_err, { profile }) => {
        writeFileSync(resolve(process.env.BENCH_CPU_PROF!, `ingress-cpu-${variant}.cpuprofile`), JSON.stringify(profile));
        process.exit(0);
      });
    }
  });
  process.send!({ port: (server.address() as AddressInfo).port });
}

function nodeIngress(originPort: number, modules = { createIngress, Executor }): Ingress {
  const metrics = new NodeMetrics(new Metrics('node-agent'), () => ({ jobs: 1, containers: {} }));
  // The executor's own lookup over one running job of one op, ready and healthy (what a job's container looks like to it).
  const op = {
    def: { type: 'container/run', args: {} },
    ports: [{ port: originPort, type: 'web' }],
    terminal: false,
    ip: '127.0.0.1',
    monitors: [{ port: originPort, ready: true, online: true }],
  };
  const state = { jobs: new Map([[JOB, { job: JOB, ops: [op] }]]), metrics };
  const executor = {
    metrics,
    ingressTarget: (job: string, rest: string[]) => modules.Executor.prototype.ingressTarget.call(state as unknown as Executor, job, rest),
  } as unknown as Executor;
  return modules.createIngress({ executor, logger: pino({ level: 'warn' }), trustForwardedHost: false });
}

/** The ingress, its executor lookup and `listen` of the baseline checkout (with this checkout's libraries otherwise). */
function baselineHandler(originPort: number): http.RequestListener {
  const from = (path: string) => require(resolve(baselineRoot!, path)) as Record<string, unknown>;
  return nodeIngress(originPort, {
    createIngress: from('apps/node-agent/src/ingress/server').createIngress as typeof createIngress,
    Executor: from('apps/node-agent/src/executor/executor').Executor as typeof Executor,
  }).handle;
}

function forwardHandler(originPort: number): http.RequestListener {
  const target = { url: new URL(`http://127.0.0.1:${originPort}`), dispatcher: upstreamAgent({ connections: 1024 }), preserveHost: true };
  return (req, res) => forward(req, res, target, '', 0, () => res.destroy());
}

function undiciHandler(originPort: number): http.RequestListener {
  const agent = new Agent({ connections: 1024 });
  const origin = `http://127.0.0.1:${originPort}`;
  return (req, res) => {
    void agent
      .request({ origin, path: req.url!, method: 'GET', headers: { host: req.headers.host! } })
      .then(async (up) => {
        res.writeHead(up.statusCode, up.headers as http.OutgoingHttpHeaders);
        for await (const chunk of up.body) res.write(chunk);
        res.end();
      })
      .catch(() => res.destroy());
  };
}

function httpHandler(originPort: number): http.RequestListener {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  return (req, res) => {
    const up = http.request({ host: '127.0.0.1', port: originPort, path: req.url, method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
}

interface Child {
  proc: ChildProcess;
  port: number;
  cpu(): Promise<number>;
}

function next<T>(proc: ChildProcess, key: string): Promise<T> {
  return new Promise((done) => {
    const on = (m: Record<string, T>) => {
      if (!(key in m)) return;
      proc.off('message', on);
      done(m[key]);
    };
    proc.on('message', on);
  });
}

async function startChild(variant: Variant, originPort: number): Promise<Child> {
  const proc = fork(__filename, ['--serve', variant, String(originPort)], {
    execArgv: ['--import', 'tsx'],
  });
  const port = await Promise.race([
    next<number>(proc, 'port'),
    new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`the ${variant} proxy exited (${code}) before listening`)))),
  ]);
  return {
    proc,
    port,
    cpu: () => {
      const answer = next<number>(proc, 'cpu');
      proc.send('cpu');
      return answer;
    },
  };
}

/** `count` GETs over `connections` keep-alive connections; the child's CPU µs per request. */
async function run(child: Child, count: number): Promise<number> {
  const pool = new Pool(`http://127.0.0.1:${child.port}`, { connections });
  const before = await child.cpu();
  let left = count;
  const worker = async () => {
    while (left-- > 0) {
      const res = await pool.request({ path: '/', method: 'GET', headers: HEADERS });
      const body = await res.body.text();
      if (res.statusCode !== 200 || body !== BODY) throw new Error(`status ${res.statusCode}, body ${JSON.stringify(body.slice(0, 80))}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const used = (await child.cpu()) - before;
  await pool.close();
  return used / count;
}

async function main(): Promise<void> {
  const origin = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': BODY.length });
    res.end(BODY);
  });
  origin.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => origin.listen(0, '127.0.0.1', done));
  const originPort = (origin.address() as AddressInfo).port;
  const children = new Map<Variant, Child>();
  for (const v of VARIANTS) children.set(v, await startChild(v, originPort));
  for (const child of children.values()) await run(child, 2_000);
  // Profiles cover the measured rounds only, not start-up and warm-up.
  if (process.env.BENCH_CPU_PROF)
    for (const child of children.values()) {
      const started = next<boolean>(child.proc, 'profiling');
      child.proc.send('profile');
      await started;
    }
  const best = new Map<Variant, number[]>();
  for (let r = 0; r < rounds; r++) for (const [v, child] of children) best.set(v, [...(best.get(v) ?? []), await run(child, requests)]);
  console.log(`bench node ingress CPU: ${requests} GETs, ${connections} keep-alive connections, ${rounds} rounds (µs of the proxy process per request; every round, best first)`);
  for (const [v, all] of best)
    console.log(
      `  ${v.padEnd(8)} ${all
        .map((us) => us.toFixed(1))
        .sort((a, b) => Number(a) - Number(b))
        .join('  ')}`,
    );
  for (const child of children.values()) {
    const gone = new Promise((done) => child.proc.once('exit', done));
    child.proc.send('exit');
    await gone;
  }
  origin.close();
  origin.closeAllConnections();
}

if (process.argv[2] === '--serve') void serve(process.argv[3] as Variant, Number(process.argv[4]));
else runBench(main);
