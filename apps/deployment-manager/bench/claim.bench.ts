/**
 * Claims per second with 50 simulated nodes (each its own key, signing real
 * requests) against the real services, and the latency of posting a job,
 * each against a bare-Postgres baseline measured in the same run:
 *   claims   the same SKIP LOCKED claim, looped by 50 pg clients on a plain table
 *            (target: the service at least 0.4x the loop)
 *   posts    one INSERT of a job row (target: posting a job p50 under 10 ms)
 *
 *   nx run deployment-manager:bench   (tsx tools/testenv/run.ts --no-docker -- tsx apps/deployment-manager/bench/claim.bench.ts)
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createSigner, generateApiKey, signNodeRequest } from '@ocg/auth';
import { cpuSecondsOf, freePort, launchServices, profileEnv, ratioLine, testDatabase, testRedis, verdict } from '@ocg/testing';

const NODES = 50;
const JOBS = 1500;
const POSTS = 300;
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

/** 50 nodes claim until the queue is empty; answers jobs per second. */
async function claimAll(dmUrl: string, market: string, nodes: ReturnType<typeof createSigner>[]): Promise<{ perSecond: number; claimed: number }> {
  let claimed = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    nodes.map(async (signer) => {
      for (;;) {
        const body = { market };
        const headers = signNodeRequest(signer, { method: 'POST', path: '/node-jobs/claim', body });
        const res = await json(`${dmUrl}/node-jobs/claim`, { body, headers });
        if (!res.assignment) return;
        claimed++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { perSecond: claimed / seconds, claimed };
}

/** The baseline: the same claim on a bare table, 50 pg clients looping until it is empty. */
async function bareClaims(url: string): Promise<number> {
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
  const perSecond = claimed / (Number(process.hrtime.bigint() - started) / 1e9);
  await Promise.all(clients.map((c) => c.end()));
  await admin.end();
  return perSecond;
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
        };
        return json(`${urls['host-manager']}/nodes/register`, { body, headers: signNodeRequest(signer, { method: 'POST', path: '/nodes/register', body }) });
      }),
    );

    const post = () => json(`${dm}/jobs`, { key: apiKey.key, body: { definition, market: market.address } });
    for (let i = 0; i < 20; i++) await post(); // warm-up (caches, JIT, pools)
    const postTimes: number[] = [];
    for (let i = 0; i < POSTS; i++) postTimes.push(await timed(post));
    postTimes.sort((a, b) => a - b);
    await pool(JOBS - POSTS - 20, 8, post);

    // Nodes heartbeat every few seconds; posting the queue can take longer than their presence lasts on a busy machine.
    await Promise.all(
      nodes.map((signer) =>
        json(`${urls['host-manager']}/nodes/heartbeat`, { body: {}, headers: signNodeRequest(signer, { method: 'POST', path: '/nodes/heartbeat', body: {} }) }),
      ),
    );
    const dmPid = stack.processes.get('deployment-manager')?.child.pid;
    const cpuBefore = cpuSecondsOf(dmPid);
    const service = await claimAll(dm, market.address, nodes);
    const cpuUsed = (cpuSecondsOf(dmPid) ?? NaN) - (cpuBefore ?? NaN);
    const bareClaim = await bareClaims(database.url);
    const bareInsert = await bareInserts(database.url);

    const [p50, p99, b50, b99] = [percentile(postTimes, 50), percentile(postTimes, 99), percentile(bareInsert, 50), percentile(bareInsert, 99)];
    console.log(`claims: ${NODES} nodes signing real requests, ${service.claimed} jobs`);
    console.log(`  deployment-manager:    ${service.perSecond.toFixed(0)} jobs/s`);
    console.log(`  baseline, bare SKIP LOCKED loop (${NODES} pg clients): ${bareClaim.toFixed(0)} jobs/s`);
    console.log(`  deployment-manager CPU: ${(service.claimed / cpuUsed).toFixed(0)} claims per core-second`);
    console.log(`  ratio service / baseline: ${ratioLine(service.perSecond, bareClaim, 0.4)}`);
    console.log(`posting a job (${POSTS} sequential posts: validate, resolve market, hold credits, store, queue):`);
    console.log(`  deployment-manager:    p50 ${p50.toFixed(1)} ms (target < 10 ms) ${verdict(p50 < 10, 'ABOVE TARGET')}, p99 ${p99.toFixed(1)} ms`);
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
