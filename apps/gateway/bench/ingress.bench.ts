/**
 * A small response from a job's container, three ways, on loopback, bounded
 * in time: straight to the container's port, through nginx proxying the same
 * container, and through the gateway's HTTPS ingress and the node's ingress.
 * Prints requests/s and p99 of each and the ratios to direct.
 * Target: the gateway path at least 0.5x direct.
 *
 *   tsx apps/gateway/bench/ingress.bench.ts   (BENCH_SECONDS, BENCH_CONNECTIONS)
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'undici';
import { freePort, localhostLookup, startTsProcess, testDatabase, testRedis, waitFor } from '@ocg/testing';

const exec = promisify(execFile);
const root = resolve(__dirname, '../../..');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

interface Target {
  name: string;
  origin: string;
  host?: string;
  ca?: Buffer;
}

interface Measure {
  rps: number;
  p99: number;
}

/** One client for all three targets: keep-alive connections, each running requests back to back. */
async function measure(target: Target, durationSeconds: number): Promise<Measure> {
  const pool = new Pool(target.origin, {
    connections,
    connect: target.ca ? { ca: target.ca, servername: target.host?.replace(/:\d+$/, ''), lookup: localhostLookup } : undefined,
  });
  const latencies: number[] = [];
  const end = Date.now() + durationSeconds * 1000;
  const worker = async () => {
    while (Date.now() < end) {
      const t0 = performance.now();
      const res = await pool.request({ path: '/', method: 'GET', headers: target.host ? { host: target.host } : {} });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`${target.name}: status ${res.statusCode}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / durationSeconds, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0 };
}

async function containerAddress(job: string): Promise<string> {
  const { stdout: id } = await exec('docker', ['ps', '-q', '--filter', `label=ocg.job=${job}`]);
  const { stdout } = await exec('docker', ['inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}', id.trim()]);
  return stdout.trim().split(' ')[0];
}

async function startNginx(dir: string, upstream: string): Promise<{ origin: string; stop(): void }> {
  const port = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/error.log; daemon off;
events { worker_connections 1024; }
http { access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  upstream job { server ${upstream}; keepalive 64; }
  server { listen 127.0.0.1:${port}; location / { proxy_pass http://job; proxy_http_version 1.1; proxy_set_header Connection ""; } } }
`,
  );
  const nginx = spawn('nginx', ['-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
  const origin = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(origin).catch(() => undefined))?.ok, { timeoutMs: 10000, what: 'nginx' });
  return { origin, stop: () => nginx.kill('SIGTERM') };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ocg-bench-stack-'));
  const db = await testDatabase();
  const redis = await testRedis();
  const lines: string[] = [];
  const stack = startTsProcess('stack', join(root, 'tools/stack/main.ts'), { STACK_DATA_DIR: dataDir, STACK_FREE_PORTS: '1', DATABASE_URL: db.url, REDIS_URL: redis.url, LOG_LEVEL: 'warn' }, 0, (l) => lines.push(l));
  let nginx: { origin: string; stop(): void } | undefined;
  try {
    const service = await waitFor(async () => lines.find((l) => l.includes('Its service:'))?.match(/https:\/\/\S+/)?.[0], { timeoutMs: 300000, intervalMs: 500, what: 'the stack' });
    const url = new URL(service);
    // The host name is lowercased; the job link keeps the address's case (container labels use it).
    const job = lines.find((l) => l.includes('Example job:'))!.match(/\/jobs\/(\w+)/)![1];
    const container = `${await containerAddress(job)}:8080`;
    nginx = await startNginx(dataDir, container);
    const targets: Target[] = [
      { name: 'direct', origin: `http://${container}` },
      { name: 'nginx', origin: nginx.origin },
      { name: 'node ingress', origin: lines.find((l) => l.includes('ingress http://'))!.match(/ingress (http:\/\/\S+)/)![1], host: url.host },
      { name: 'gateway', origin: `https://127.0.0.1:${url.port}`, host: url.host, ca: readFileSync(join(dataDir, 'tls', 'ca.crt')) },
    ];
    for (const t of targets) await measure(t, 1); // warm up: JIT, keep-alive sockets, TLS sessions
    const results = new Map<string, Measure>();
    for (const t of targets) results.set(t.name, await measure(t, seconds));
    const direct = results.get('direct')!;
    console.log(`bench ingress: GET / of a busybox httpd job, ${connections} connections, ${seconds} s each`);
    for (const [name, m] of results) {
      const ratio = m.rps / direct.rps;
      console.log(`  ${name.padEnd(12)} ${m.rps.toFixed(0).padStart(6)} req/s  p99 ${m.p99.toFixed(1).padStart(6)} ms  ${ratio.toFixed(2)}x direct`);
    }
    const ratio = results.get('gateway')!.rps / direct.rps;
    console.log(`  gateway path (HTTPS gateway -> node ingress -> container): ${ratio.toFixed(2)}x direct (target >= 0.50x) ${ratio >= 0.5 ? 'OK' : 'BELOW TARGET'}`);
  } finally {
    nginx?.stop();
    await stack.stop(60000);
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
