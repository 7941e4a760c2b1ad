/**
 * Claims per second with 50 simulated nodes (each its own key, signing real
 * requests) against the real services, and the latency of posting a job,
 * each against a bare-Postgres baseline measured in the same run:
 *   claims   the same SKIP LOCKED claim, looped by 50 pg clients on a plain table
 *            (target: the service at least 0.4x the loop). The nodes have room
 *            for every job and claim once each before the timed phase, which
 *            then runs until the queue is empty, as the loop does: steady
 *            claims, not the claim route's first requests in the process
 *   posts    one INSERT of a job row (target: posting a job p50 under 10 ms)
 *
 *   nx run deployment-manager:bench   (tsx tools/testenv/run.ts --no-docker -- tsx apps/deployment-manager/bench/claim.bench.ts)
 * BENCH_STATEMENTS=1: pg_stat_statements per operation; BENCH_WAITS=1: what the service's
 * Postgres connections did while claiming; BENCH_PROFILE_DIR=<dir>: V8 profiles of the services.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import pg from 'pg';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { createSigner, generateApiKey, signNodeRequest } from '@ocg/auth';
import { cpuSecondsOf, freePort, launchServices, profileEnv, ratioLine, testDatabase, testRedis, verdict } from '@ocg/testing';

const NODES = 50;
const JOBS = 1500;
const POSTS = 300;
/** Each node's capacity: together room for every job posted. */
const NODE_CAPACITY = Math.ceil(JOBS / NODES);
const INTERNAL_TOKEN = 'internal-token-for-the-claim-bench';
const definition = { version: '0.1', type: 'container', ops: [{ type: 'container/run', id: 'sleep', args: { image: 'busybox', cmd: ['sleep', '60'] } }] };

async function json(url: string, init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> }): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  const res = await fetch(url, { method: init.method ?? 'POST', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const body = await res.json();
  if (!res.ok) throw new Error(`${init.method ?? 'POST'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** Runs `count` calls with `parallel` at a time. */
async function pool(count: number, parallel: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await call(next++);
    }),
  );
}

/**
 * 50 nodes claim until the queue is empty (or they are full); answers jobs per second. Each node keeps
 * one connection (undici's pool, like the baseline's one pg connection per client): the client's own
 * transport then costs a fraction of what fetch does, and leaves the shared cores to the service.
 */
async function claimAll(
  dmUrl: string,
  market: string,
  nodes: ReturnType<typeof createSigner>[],
  perNode = Infinity,
): Promise<{ perSecond: number; claimed: number; seconds: number; times: number[] }> {
  const pool = new Pool(dmUrl, { connections: nodes.length, pipelining: 1 });
  let claimed = 0;
  const times: number[] = [];
  const started = process.hrtime.bigint();
  try {
    await Promise.all(
      nodes.map(async (signer) => {
        for (let n = 0; n < perNode; n++) {
          const body = { market };
          const headers = { 'content-type': 'application/json', ...signNodeRequest(signer, { method: 'POST', path: '/node-jobs/claim', body }) };
          const sent = process.hrtime.bigint();
          const res = await pool.request({ path: '/node-jobs/claim', method: 'POST', headers, body: JSON.stringify(body) });
          const answer = (await res.body.json()) as { assignment?: unknown };
          times.push(Number(process.hrtime.bigint() - sent) / 1e6);
          if (res.statusCode !== 200) throw new Error(`POST /node-jobs/claim: ${res.statusCode} ${JSON.stringify(answer)}`);
          if (!answer.assignment) return;
          claimed++;
        }
      }),
    );
  } finally {
    await pool.close();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { perSecond: claimed / seconds, claimed, seconds, times: times.sort((a, b) => a - b) };
}

/** The baseline: the same claim on a bare table, 50 pg clients looping until it is empty; `cpu` is read around the loop alone. */
async function bareClaims(url: string, cpu: () => number): Promise<{ perSecond: number; seconds: number; cpuSeconds: number }> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE TABLE bare_jobs (seq bigserial PRIMARY KEY, market text NOT NULL, status text NOT NULL, node text, started_at timestamptz)`);
  await admin.query(`CREATE INDEX ON bare_jobs (market, seq) WHERE status = 'QUEUED'`);
  await admin.query(`INSERT INTO bare_jobs (market, status) SELECT 'm', 'QUEUED' FROM generate_series(1, $1)`, [JOBS]);
  const clients = await Promise.all(
    Array.from({ length: NODES }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  let claimed = 0;
  const cpuBefore = cpu();
  const started = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (c, i) => {
      for (;;) {
        const { rowCount } = await c.query(
          `WITH next AS (SELECT seq FROM bare_jobs WHERE market = 'm' AND status = 'QUEUED' ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
         UPDATE bare_jobs j SET status = 'RUNNING', node = $1, started_at = now() FROM next WHERE j.seq = next.seq RETURNING j.seq`,
          [`node-${i}`],
        );
        if (!rowCount) return;
        claimed++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuSeconds = cpu() - cpuBefore;
  await Promise.all(clients.map((c) => c.end()));
  await admin.end();
  return { perSecond: claimed / seconds, seconds, cpuSeconds };
}

/** The baseline of a post: one INSERT of a job-sized row. */
async function bareInserts(url: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`CREATE TABLE bare_posts (address text PRIMARY KEY, definition jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
  const times: number[] = [];
  for (let i = 0; i < POSTS; i++)
    times.push(await timed(() => c.query(`INSERT INTO bare_posts (address, definition) VALUES ($1, $2)`, [randomBytes(32).toString('hex'), JSON.stringify(definition)])));
  await c.end();
  return times.sort((a, b) => a - b);
}

/**
 * Samples what the service's Postgres connections are doing (pg_stat_activity, every few ms) until stopped:
 * the share of samples per state and wait event, e.g. "active 41%, idle 52%, Lock:advisory 3%".
 */
function sampleWaits(url: string, applicationName: string): () => Promise<string> {
  const c = new pg.Client({ connectionString: url });
  const counts = new Map<string, number>();
  let total = 0;
  let running = true;
  const loop = (async () => {
    await c.connect();
    while (running) {
      const { rows } = await c.query(`SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, [applicationName]);
      for (const r of rows) {
        const key = r.wait_event ? `${r.state}:${r.wait_event_type}:${r.wait_event}` : r.state;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        total++;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return async () => {
    running = false;
    await loop;
    await c.end();
    return [...counts]
      .sort((a, b) => b[1] - a[1])
      .map(([key, n]) => `${key} ${((n / total) * 100).toFixed(0)}%`)
      .join(', ');
  };
}

/** Redis commands served so far, by name (INFO commandstats; a script's own commands count too). */
async function redisCalls(url: string): Promise<Map<string, number>> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    const info = await r.info('commandstats');
    return new Map([...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1], Number(m[2])]));
  } finally {
    r.disconnect();
  }
}

/** The commands per operation between two counts, e.g. "eval 1.00, exists 1.00". */
function perOperation(before: Map<string, number>, after: Map<string, number>, operations: number): string {
  return [...after]
    .map(([name, calls]) => [name, (calls - (before.get(name) ?? 0)) / operations] as const)
    .filter(([name, n]) => n >= 0.05 && name !== 'info')
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n.toFixed(2)}`)
    .join(', ');
}

/** The postmaster's pid (the parent of a backend), to read the CPU of the whole server. */
async function postmasterOf(url: string): Promise<number | undefined> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query('SELECT pg_backend_pid() AS pid');
    return Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${rows[0].pid}/status`, 'utf8'))?.[1]);
  } catch {
    return undefined;
  } finally {
    await c.end();
  }
}

/** CPU seconds of a Postgres server: the postmaster, its live children, and the children it reaped (Linux /proc). */
function postgresCpu(postmaster: number | undefined): number {
  if (postmaster === undefined) return NaN;
  const fields = (pid: number | string) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  try {
    const own = fields(postmaster);
    let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const f = fields(pid);
        if (Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
      } catch {
        // gone meanwhile
      }
    }
    return ticks / 100;
  } catch {
    return NaN;
  }
}

/**
 * Statements Postgres ran since the last call, from pg_stat_statements when
 * the server loads it (statements inside functions counted too, with
 * track = all); the top ones by total time, per operation. Resets the counts.
 */
async function statements(url: string, label: string, operations: number): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const { rows } = await c.query(
      `SELECT calls, total_exec_time, toplevel, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 110) AS query FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY total_exec_time DESC LIMIT 12`,
    );
    const top = rows.filter((r) => r.toplevel);
    const calls = top.reduce((n, r) => n + Number(r.calls), 0);
    const ms = top.reduce((n, r) => n + Number(r.total_exec_time), 0);
    console.log(`  Postgres, ${label}: ${(calls / operations).toFixed(2)} top-level statements and ${((ms / operations) * 1000).toFixed(0)} µs executing per operation`);
    for (const r of rows)
      console.log(
        `    ${(Number(r.calls) / operations).toFixed(2)}x ${((Number(r.total_exec_time) / operations) * 1000).toFixed(0).padStart(5)} µs ${r.toplevel ? ' ' : '>'} ${r.query}`,
      );
    await c.query('SELECT pg_stat_statements_reset()');
  } catch (err) {
    console.log(`  Postgres, ${label}: no pg_stat_statements (${(err as Error).message})`);
  } finally {
    await c.end();
  }
}

async function main(): Promise<void> {
  const database = await testDatabase();
  const redis = await testRedis();
  const adminKey = generateApiKey();
  const ports = { 'client-manager': await freePort(), 'host-manager': await freePort(), 'deployment-manager': await freePort() };
  const stack = await launchServices({
    only: ['client-manager', 'host-manager', 'deployment-manager'],
    databaseUrl: database.url,
    redisUrl: redis.url,
    ports,
    logLevel: 'warn',
    env: { MASTER_KEY: 'ef'.repeat(32), ADMIN_API_KEY: adminKey, INTERNAL_TOKEN, ...profileEnv() },
    serviceEnv: {
      'deployment-manager': {
        JOB_POSTS_PER_MINUTE: '0',
        CLIENT_MANAGER_URL: `http://127.0.0.1:${ports['client-manager']}`,
        HOST_MANAGER_URL: `http://127.0.0.1:${ports['host-manager']}`,
      },
    },
    onLine: () => undefined,
  });
  try {
    const { urls } = stack;
    const dm = urls['deployment-manager'];
    const market = await json(`${urls['host-manager']}/markets`, { key: adminKey, body: { name: 'Bench', pricePerSecond: 1, defaultDurationSeconds: 600 } });
    const { user, apiKey } = await json(`${urls['client-manager']}/users`, { key: adminKey, body: { email: 'bench@example.com', name: 'Bench' } });
    await json(`${urls['client-manager']}/credits/grant`, { key: adminKey, body: { userId: user.id, amount: 1e12, reason: 'bench' } });
    const nodes = Array.from({ length: NODES }, () => createSigner(randomBytes(32)));
    await Promise.all(
      nodes.map((signer) => {
        const body = {
          market: market.address,
          joinToken: market.joinToken,
          specs: { cpus: 1, memoryBytes: 2 ** 30, gpus: [] },
          domain: 'bench.test',
          ingressUrl: 'http://127.0.0.1:9',
          // Room for every job: the claim phase runs until the queue is empty, as the baseline's loop does.
          capacity: NODE_CAPACITY,
        };
        return json(`${urls['host-manager']}/nodes/register`, { body, headers: signNodeRequest(signer, { method: 'POST', path: '/nodes/register', body }) });
      }),
    );

    const statementsOn = Boolean(process.env.BENCH_STATEMENTS);
    const post = () => json(`${dm}/jobs`, { key: apiKey.key, body: { definition, market: market.address } });
    for (let i = 0; i < 20; i++) await post(); // warm-up (caches, JIT, pools)
    if (statementsOn) await statements(database.url, 'warm-up', 1);
    const postTimes: number[] = [];
    const pidOf = (name: string) => stack.processes.get(name)?.child.pid;
    const postmaster = await postmasterOf(database.url);
    const cpuOfPost = () => [cpuSecondsOf(pidOf('deployment-manager')) ?? NaN, cpuSecondsOf(pidOf('client-manager')) ?? NaN, postgresCpu(postmaster)];
    const cpuPostBefore = cpuOfPost();
    const redisPostBefore = await redisCalls(redis.url);
    for (let i = 0; i < POSTS; i++) postTimes.push(await timed(post));
    const redisPerPost = perOperation(redisPostBefore, await redisCalls(redis.url), POSTS);
    const [dmPost, cmPost, pgPost] = cpuOfPost().map((after, i) => ((after - cpuPostBefore[i]) / POSTS) * 1e3);
    const postCpuLine = `  CPU per post: deployment-manager ${dmPost.toFixed(2)} ms, client-manager ${cmPost.toFixed(2)} ms, Postgres ${pgPost.toFixed(2)} ms`;
    if (statementsOn) await statements(database.url, 'per post', POSTS);
    postTimes.sort((a, b) => a - b);
    await pool(JOBS - POSTS - 20, 8, post);
    if (statementsOn) await statements(database.url, 'the rest', 1);

    // Nodes heartbeat every few seconds; posting the queue can take longer than their presence lasts on a busy machine.
    await Promise.all(
      nodes.map((signer) =>
        json(`${urls['host-manager']}/nodes/heartbeat`, { body: {}, headers: signNodeRequest(signer, { method: 'POST', path: '/nodes/heartbeat', body: {} }) }),
      ),
    );
    // Warm-up: one claim a node (the claim route's first requests in this process, each node's standing from host-manager).
    await claimAll(dm, market.address, nodes, 1);
    const dmPid = stack.processes.get('deployment-manager')?.child.pid;
    const hmBefore = cpuSecondsOf(pidOf('host-manager')) ?? NaN;
    const stopWaits = process.env.BENCH_WAITS ? sampleWaits(database.url, 'deployment_manager') : undefined;
    const cpuBefore = cpuSecondsOf(dmPid);
    const clientBefore = process.cpuUsage();
    const pgBefore = postgresCpu(postmaster);
    const redisClaimBefore = await redisCalls(redis.url);
    const claimFrom = process.hrtime.bigint() / 1000n;
    const service = await claimAll(dm, market.address, nodes);
    // V8's profiles time samples on the same monotonic clock: the window picks the claim phase out of deployment-manager's profile.
    if (process.env.BENCH_PROFILE_DIR) console.log(`profiles: deployment-manager is pid ${dmPid}; claim phase ${claimFrom}-${process.hrtime.bigint() / 1000n} µs (monotonic)`);
    const pgUsed = postgresCpu(postmaster) - pgBefore;
    const hmUsed = (cpuSecondsOf(pidOf('host-manager')) ?? NaN) - hmBefore;
    const waits = await stopWaits?.();
    const redisPerClaim = perOperation(redisClaimBefore, await redisCalls(redis.url), service.claimed);
    const cpuUsed = (cpuSecondsOf(dmPid) ?? NaN) - (cpuBefore ?? NaN);
    const client = process.cpuUsage(clientBefore);
    const clientUsed = (client.user + client.system) / 1e6;
    if (statementsOn) await statements(database.url, 'per claim', service.claimed);
    const clientBareBefore = process.cpuUsage();
    const bare = await bareClaims(database.url, () => postgresCpu(postmaster));
    const clientBare = process.cpuUsage(clientBareBefore);
    const bareClaim = bare.perSecond;
    const bareInsert = await bareInserts(database.url);

    const [p50, p99, b50, b99] = [percentile(postTimes, 50), percentile(postTimes, 99), percentile(bareInsert, 50), percentile(bareInsert, 99)];
    console.log(`claims: ${NODES} nodes signing real requests, ${service.claimed} jobs`);
    console.log(`  deployment-manager:    ${service.perSecond.toFixed(0)} jobs/s`);
    console.log(`  baseline, bare SKIP LOCKED loop (${NODES} pg clients): ${bareClaim.toFixed(0)} jobs/s`);
    console.log(`  deployment-manager CPU: ${(service.claimed / cpuUsed).toFixed(0)} claims per core-second`);
    const ms = (seconds: number, n: number) => `${((seconds / n) * 1e3).toFixed(2)} ms`;
    console.log(
      `  CPU per claim: deployment-manager ${ms(cpuUsed, service.claimed)}, Postgres ${ms(pgUsed, service.claimed)}, the 50 signing clients (this process) ${ms(clientUsed, service.claimed)}, host-manager ${ms(hmUsed, service.claimed)}; Postgres per bare claim ${ms(bare.cpuSeconds, JOBS)}`,
    );
    // Cores busy while claiming: far under the machine's cores means the claims wait rather than work.
    const cores = (seconds: number, wall: number) => (seconds / wall).toFixed(2);
    console.log(
      `  cores busy while claiming: deployment-manager ${cores(cpuUsed, service.seconds)}, Postgres ${cores(pgUsed, service.seconds)}, clients ${cores(clientUsed, service.seconds)}, host-manager ${cores(hmUsed, service.seconds)} (bare loop: Postgres ${cores(bare.cpuSeconds, bare.seconds)}, clients ${cores((clientBare.user + clientBare.system) / 1e6, bare.seconds)}); load average ${loadavg()[0].toFixed(2)}`,
    );
    const [c50, c99] = [percentile(service.times, 50), percentile(service.times, 99)];
    console.log(`  a claim's round trip (${NODES} in flight): p50 ${c50.toFixed(1)} ms, p99 ${c99.toFixed(1)} ms`);
    if (waits) console.log(`  deployment-manager's Postgres connections while claiming (pg_stat_activity samples): ${waits}`);
    console.log(`  Redis commands per claim: ${redisPerClaim}`);
    console.log(`  ratio service / baseline: ${ratioLine(service.perSecond, bareClaim, 0.4)}`);
    console.log(`posting a job (${POSTS} sequential posts: validate, resolve market, hold credits, store, queue):`);
    console.log(`  deployment-manager:    p50 ${p50.toFixed(1)} ms (target < 10 ms) ${verdict(p50 < 10, 'ABOVE TARGET')}, p99 ${p99.toFixed(1)} ms`);
    console.log(postCpuLine);
    console.log(`  Redis commands per post: ${redisPerPost}`);
    console.log(`  baseline, bare INSERT: p50 ${b50.toFixed(2)} ms, p99 ${b99.toFixed(2)} ms`);
    console.log(`  ratio service / baseline: p50 ${(p50 / b50).toFixed(1)}x, p99 ${(p99 / b99).toFixed(1)}x`);
  } finally {
    await stack.stop();
    await database.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
