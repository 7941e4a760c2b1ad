/**
 * The job ingress against a fast origin: a job whose container is nginx
 * answering a small static body (ocg-test/nginx-origin, built offline from
 * the host's nginx-light, see @ocg/testing), on the local stack, measured
 * four ways on loopback, bounded in time:
 *
 *   direct        straight to the container's port
 *   node ingress  the node agent's ingress (plain HTTP, the job's host name)
 *   gateway       the whole path: the gateway's HTTPS ingress, then the node's
 *                 forward of the endpoint (ADR 0092: the kernel's DNAT, on as
 *                 the local stack runs as root; without it, the node's ingress)
 *   nginx         Debian's nginx on the host, as many workers as the
 *                 gateway has processes (one), HTTPS with the stack's
 *                 certificate, proxying to the same container over
 *                 keep-alive connections: what a proxy in front of it costs
 *
 * Prints requests/s and p99 of each and the ratios, OK or BELOW TARGET:
 * the origin at least 10k requests/s direct, the gateway path at least 0.5x
 * direct and at least 0.8x nginx. Beside them, the CPU time each process on
 * the path spent per request (from /proc; the proxies, the container's
 * processes and this one, the load generator), with its system part (the
 * kernel's socket work) and their sum: on a machine shared with other work,
 * throughput moves with the load, the work per request much less.
 *
 *   tsx tools/testenv/run.ts -- tsx apps/gateway/bench/ingress.bench.ts   (BENCH_SECONDS, BENCH_CONNECTIONS)
 *
 * BENCH_TWO_HOPS=1 then measures the gateway path as it was before forwards
 * (and still is for a node without them): the endpoint's forward is taken
 * out of the bench's own database, so the gateway relays to the node's
 * ingress. Printed beside the others, not checked.
 *
 * BENCH_CPU_PROF=<dir> writes a CPU profile of every process of the stack
 * (node --cpu-prof; the gateway's and the node agent's show the proxy path)
 * into <dir> when the stack stops.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { createApiClient } from '@ocg/api-client';
import {
  cpuSplitOf,
  ensureNginxOriginImage,
  freePort,
  localhostLookup,
  NGINX_ORIGIN_BODY,
  startTsProcess,
  testDatabase,
  testRedis,
  trustLocalCa,
  waitFor,
  runBench,
  removeNodeObjects,
  testNodeId,
} from '@ocg/testing';

const exec = promisify(execFile);
const root = resolve(__dirname, '../../..');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ORIGIN_TARGET_RPS = 10_000;
/** The gateway runs as one process: nginx gets as many workers, so the two proxies have the same cores to use. */
const GATEWAY_PROCESSES = 1;

interface Target {
  name: string;
  origin: string;
  host?: string;
  ca?: Buffer;
}

interface Measure {
  rps: number;
  p99: number;
  /** CPU microseconds per request of each proxy process on the path: in its own code (user) and in the kernel for it (system: the socket calls). */
  cpu: Record<string, Cpu>;
}

/** Processes whose command line holds `needle` (this checkout's entry files), or whose parent is `parent`. */
function pidsWhere(match: (cmdline: string, ppid: number) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (match(cmdline, ppid)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

interface Cpu {
  user: number;
  system: number;
}

const cpuOf = (pids: number[]): Cpu =>
  pids.reduce<Cpu>(
    (sum, pid) => {
      const { user, system } = cpuSplitOf(pid) ?? { user: 0, system: 0 };
      return { user: sum.user + user, system: sum.system + system };
    },
    { user: 0, system: 0 },
  );

/** One client for every target: keep-alive connections, each running requests back to back. */
async function measure(target: Target, durationSeconds: number, proxies: Record<string, number[]> = {}): Promise<Measure> {
  const pool = new Pool(target.origin, {
    connections,
    connect: target.ca ? { ca: target.ca, servername: target.host?.replace(/:\d+$/, ''), lookup: localhostLookup } : undefined,
  });
  const latencies: number[] = [];
  const cpuBefore = Object.fromEntries(Object.entries(proxies).map(([name, pids]) => [name, cpuOf(pids)]));
  const end = Date.now() + durationSeconds * 1000;
  const worker = async () => {
    while (Date.now() < end) {
      const t0 = performance.now();
      const res = await pool.request({ path: '/', method: 'GET', headers: target.host ? { host: target.host } : {} });
      const body = await res.body.text();
      if (res.statusCode !== 200 || body !== NGINX_ORIGIN_BODY) throw new Error(`${target.name}: status ${res.statusCode}, body ${JSON.stringify(body.slice(0, 80))}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const perRequest = (after: number, before: number) => ((after - before) * 1e6) / latencies.length;
  const cpu = Object.fromEntries(
    Object.entries(proxies).map(([name, pids]) => {
      const after = cpuOf(pids);
      return [name, { user: perRequest(after.user, cpuBefore[name].user), system: perRequest(after.system, cpuBefore[name].system) }];
    }),
  );
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / durationSeconds, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0, cpu };
}

/** `pid` and every process below it. */
function withDescendants(pid: number): number[] {
  const found = [pid];
  for (let i = 0; i < found.length; i++) found.push(...pidsWhere((_cmd, ppid) => ppid === found[i]));
  return found;
}

/** The job's container: its address on its network, and its processes (its init and everything under it) as the host sees them. */
async function containerOf(job: string): Promise<{ address: string; pids: number[] }> {
  const { stdout: id } = await exec('docker', ['ps', '-q', '--filter', `label=ocg.job=${job}`]);
  const { stdout } = await exec('docker', ['inspect', '-f', '{{.State.Pid}} {{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}', id.trim()]);
  const [pid, address] = stdout.trim().split(' ');
  return { address, pids: withDescendants(Number(pid)) };
}

interface Nginx {
  origin: string;
  /** The master and its workers. */
  pids(): number[];
  stop(): void;
}

/** Debian's nginx on the host: `workers` workers, TLS with the stack's certificate, keep-alive connections to `upstream`. */
async function startNginx(dir: string, upstream: string, tls: { cert: string; key: string; ca: Buffer }, workers: number): Promise<Nginx> {
  const port = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes ${workers}; pid ${dir}/nginx.pid; error_log ${dir}/nginx-error.log; daemon off;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  keepalive_requests 1000000;
  upstream job { server ${upstream}; keepalive 64; }
  server { listen 127.0.0.1:${port} ssl; ssl_certificate ${tls.cert}; ssl_certificate_key ${tls.key};
    location / { proxy_pass http://job; proxy_http_version 1.1; proxy_set_header Connection ""; } } }
`,
  );
  const nginx = spawn('nginx', ['-e', join(dir, 'nginx-error.log'), '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
  const origin = `https://127.0.0.1:${port}`;
  const pool = new Pool(origin, { connect: { ca: tls.ca, servername: 'localhost' } });
  await waitFor(async () => (await pool.request({ path: '/', method: 'GET' }).catch(() => undefined))?.statusCode === 200, { timeoutMs: 10000, what: 'nginx' });
  await pool.close();
  const master = nginx.pid ?? -1;
  return { origin, pids: () => [master, ...pidsWhere((_cmd, ppid) => ppid === master)], stop: () => nginx.kill('SIGTERM') };
}

/** Posts the fast origin as the demo user's job; its address once its service answers through the gateway. */
async function postOrigin(gateway: string, userKey: string, image: string): Promise<{ job: string; url: string }> {
  const user = createApiClient({ baseUrl: gateway, apiKey: userKey });
  const definition = {
    version: '0.1' as const,
    type: 'container' as const,
    ops: [
      {
        type: 'container/run' as const,
        id: 'origin',
        args: {
          image,
          expose: [{ port: 8080, type: 'web' as const, health_checks: [{ type: 'http' as const, path: '/', method: 'GET' as const, expected_status: 200, continuous: true }] }],
        },
      },
    ],
  };
  const posted = await user.POST('/jobs', { body: { definition, market: 'local-cpu', durationSeconds: 900 } });
  if (!posted.data) throw new Error(`posting the origin job: ${posted.response.status} ${JSON.stringify(posted.error)}`);
  const job = posted.data.address;
  const url = await waitFor(
    async () => {
      const { data } = await user.GET('/jobs/{job}', { params: { path: { job } } });
      if (data && !['QUEUED', 'RUNNING'].includes(data.status)) throw new Error(`the origin job ended ${data.status}: ${data.reason}`);
      return data?.status === 'RUNNING' ? (data.url ?? undefined) : undefined;
    },
    { timeoutMs: 120000, intervalMs: 500, what: 'the origin job to run' },
  );
  await waitFor(async () => (await fetch(url).catch(() => undefined))?.ok, { timeoutMs: 120000, intervalMs: 500, what: `the origin at ${url}` });
  return { job, url };
}

/** The endpoint's forward once the node reported it (and the gateway heard of it: the route's message comes with it); undefined without one. */
async function forwardOf(databaseUrl: string, job: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const query = async () =>
      (await client.query<{ forward: string }>('SELECT forward FROM deployment_manager.job_endpoints WHERE job_address = $1 AND forward IS NOT NULL', [job])).rows[0]?.forward;
    return await waitFor(query, { timeoutMs: 15000, intervalMs: 250, what: "the endpoint's forward" }).catch(() => undefined);
  } finally {
    await client.end();
  }
}

function verdict(ok: boolean): string {
  return ok ? 'OK' : 'BELOW TARGET';
}

async function main(): Promise<void> {
  const image = await ensureNginxOriginImage();
  const dataDir = mkdtempSync(join(tmpdir(), 'ocg-bench-stack-'));
  const db = await testDatabase();
  const redis = await testRedis();
  const lines: string[] = [];
  const profile: Record<string, string> = process.env.BENCH_CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(process.env.BENCH_CPU_PROF)}` } : {};
  // The agent's Docker objects carry a node id owned by this process: swept even when the bench is killed.
  const nodeId = testNodeId('bench-ingress');
  const env = { STACK_DATA_DIR: dataDir, STACK_FREE_PORTS: '1', DATABASE_URL: db.url, REDIS_URL: redis.url, LOG_LEVEL: 'warn', NODE_ID: nodeId, ...profile };
  const stack = startTsProcess('stack', join(root, 'tools/stack/main.ts'), env, 0, (l) => lines.push(l));
  let nginx: Nginx | undefined;
  try {
    await waitFor(() => lines.some((l) => l.includes('Its service:')), { timeoutMs: 300000, intervalMs: 500, what: 'the stack' });
    const gateway = lines.find((l) => l.includes('Gateway:'))!.match(/https:\/\/\S+/)![0];
    const ingress = lines.find((l) => l.includes('ingress http://'))!.match(/ingress (http:\/\/\S+)/)![1];
    const tls = { cert: join(dataDir, 'tls', 'server.crt'), key: join(dataDir, 'tls', 'server.key'), ca: readFileSync(join(dataDir, 'tls', 'ca.crt')) };
    trustLocalCa(join(dataDir, 'tls', 'ca.crt'));
    const { userKey } = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as { userKey: string };
    const { job, url } = await postOrigin(gateway, userKey, image);
    const host = new URL(url).host;
    const forward = await forwardOf(db.url, job);
    const origin = await containerOf(job);
    const container = `${origin.address}:8080`;
    nginx = await startNginx(dataDir, container, tls, GATEWAY_PROCESSES);
    // This checkout's gateway and node agent (their command lines name their entry files).
    const entry = (path: string) => pidsWhere((cmdline) => cmdline.includes(join(root, path)));
    const [gatewayPids, agentPids] = [entry('apps/gateway/src/main.ts'), entry('apps/node-agent/src/main.ts')];
    // The gateway's edge proxy (ADR 0093), its child: HAProxy serves job hosts at the job URL's port when the stack has it.
    const edgePids = pidsWhere((cmdline, ppid) => gatewayPids.includes(ppid) && /(^|\/)haproxy /.test(cmdline));
    const gatewayPort = new URL(gateway).port;
    const edgeOn = new URL(url).port !== gatewayPort;
    // Beside the proxies, every run counts the origin's processes and this one (the load generator): their sum is the path's CPU a request.
    const ends = { origin: origin.pids, 'load generator': [process.pid] };
    const targets: Array<Target & { proxies: Record<string, number[]> }> = [
      { name: 'direct', origin: `http://${container}`, proxies: { ...ends } },
      { name: 'node ingress', origin: ingress, host, proxies: { 'node ingress': agentPids, ...ends } },
      {
        name: 'gateway',
        origin: `https://127.0.0.1:${new URL(url).port}`,
        host,
        ca: tls.ca,
        proxies: { ...(edgeOn ? { 'edge (HAProxy)': edgePids } : {}), gateway: gatewayPids, 'node ingress': agentPids, ...ends },
      },
      { name: 'nginx', origin: nginx.origin, host: 'localhost', ca: tls.ca, proxies: { nginx: nginx.pids(), ...ends } },
      // The gateway's own port, which serves job hosts too: the path without the edge (not checked).
      ...(edgeOn
        ? [{ name: 'gateway, no edge', origin: `https://127.0.0.1:${gatewayPort}`, host, ca: tls.ca, proxies: { gateway: gatewayPids, 'node ingress': agentPids, ...ends } }]
        : []),
    ];
    for (const t of targets) await measure(t, 1); // warm up: JIT, keep-alive sockets, TLS sessions
    const results = new Map<string, Measure>();
    for (const t of targets) results.set(t.name, await measure(t, seconds, t.proxies));
    if (process.env.BENCH_TWO_HOPS === '1') {
      // The bench's own database: the job's endpoints lose their forwards (the node reports them again only when they change).
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      await client.query('UPDATE deployment_manager.job_endpoints SET forward = NULL');
      await client.end();
      // On the gateway's own port when the edge is on: the edge would add a third hop before the gateway's.
      const twoHops = targets.find((t) => t.name === 'gateway, no edge') ?? targets.find((t) => t.name === 'gateway')!;
      // The gateway revalidates a known route every INGRESS_CACHE_MS (2 s): wait until the node's ingress relays its requests.
      // (Relaying, it spends tens of µs a request; its heartbeats and syncs alone, spread over a second's requests, well under one.)
      const nodeCpu = async () => Object.values((await measure(twoHops, 1, { 'node ingress': agentPids })).cpu['node ingress']).reduce((a, b) => a + b);
      await waitFor(async () => (await nodeCpu()) > 10, { timeoutMs: 30000, intervalMs: 500, what: "the gateway to relay through the node's ingress" });
      results.set('gateway, two hops', await measure(twoHops, seconds, { gateway: gatewayPids, 'node ingress': agentPids, ...ends }));
    }
    const direct = results.get('direct')!;
    const viaGateway = results.get('gateway')!;
    const viaNginx = results.get('nginx')!;
    console.log(`bench ingress: GET / of an nginx job (a ${NGINX_ORIGIN_BODY.length}-byte body), ${connections} connections, ${seconds} s each`);
    console.log(`  the node's forward of the endpoint: ${forward ?? "none (not root: the gateway path goes through the node's ingress)"}`);
    // Every hop is another process to schedule: on a machine busier than its cores, the proxies' numbers fall first.
    const [load] = loadavg();
    const cores = availableParallelism();
    console.log(`  machine: ${cores} cores, load average ${load.toFixed(1)}${load > cores ? ' (busier than its cores: the proxied paths are understated)' : ''}`);
    console.log(`  nginx: ${GATEWAY_PROCESSES} worker${GATEWAY_PROCESSES === 1 ? '' : 's'} (as many as gateway processes), the stack's certificate, keep-alive to the container`);
    for (const [name, m] of results) {
      const cpu = Object.entries(m.cpu).map(([proxy, us]) => `${proxy} ${(us.user + us.system).toFixed(0)} µs (${us.system.toFixed(0)} system)`);
      const total = Object.values(m.cpu).reduce((sum, us) => sum + us.user + us.system, 0);
      const cpuText = cpu.length ? `\n${' '.repeat(18)}CPU a request ${total.toFixed(0)} µs: ${cpu.join(' + ')}` : '';
      console.log(`  ${name.padEnd(16)} ${m.rps.toFixed(0).padStart(6)} req/s  p99 ${m.p99.toFixed(1).padStart(6)} ms  ${(m.rps / direct.rps).toFixed(2)}x direct${cpuText}`);
    }
    const toDirect = viaGateway.rps / direct.rps;
    const toNginx = viaGateway.rps / viaNginx.rps;
    console.log(`  origin direct: ${direct.rps.toFixed(0)} req/s (target >= ${ORIGIN_TARGET_RPS}) ${verdict(direct.rps >= ORIGIN_TARGET_RPS)}`);
    const path = `HTTPS ${edgeOn ? "gateway's edge" : 'gateway'} -> ${forward ? 'node forward' : 'node ingress'} -> container`;
    console.log(`  gateway path (${path}): ${toDirect.toFixed(2)}x direct (target >= 0.50x) ${verdict(toDirect >= 0.5)}`);
    console.log(`  gateway path beside nginx (HTTPS, one worker, same origin): ${toNginx.toFixed(2)}x nginx (target >= 0.80x) ${verdict(toNginx >= 0.8)}`);
    const noEdge = results.get('gateway, no edge');
    if (noEdge) console.log(`  the gateway's own port, no edge (not checked): ${(noEdge.rps / direct.rps).toFixed(2)}x direct, ${(noEdge.rps / viaNginx.rps).toFixed(2)}x nginx`);
    const twoHops = results.get('gateway, two hops');
    if (twoHops) {
      console.log(`  through the node's ingress, no forward (not checked): ${(twoHops.rps / direct.rps).toFixed(2)}x direct, ${(twoHops.rps / viaNginx.rps).toFixed(2)}x nginx`);
    }
  } finally {
    nginx?.stop();
    await stack.stop(60000);
    await removeNodeObjects(nodeId);
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
