/**
 * The hot paths of client-manager, through the gateway and straight to the
 * service, on loopback, bounded in time:
 *   1. POST /auth/validate-api-key with a warm cache: requests/s and p99 at
 *      one connection (the latency target: p99 under 5 ms) and at
 *      BENCH_CONNECTIONS, against GET /auth/scopes on the same service as the
 *      baseline (the same HTTP stack doing no auth work);
 *   2. POST /auth/sign-messages/external with 100 messages: median latency
 *      against signing the same 100 messages in-process (target under 20 ms).
 *
 *   tsx apps/client-manager/bench/auth.bench.ts   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_SIGN_ROUNDS)
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { createSigner, generateApiKey, generateWallet, signForExternal } from '@ocg/auth';
import { freePorts, launchServices, testDatabase, testRedis } from '@ocg/testing';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const signRounds = Number(process.env.BENCH_SIGN_ROUNDS ?? 200);
const SERVICES = ['client-manager', 'gateway'];

interface Load {
  rps: number;
  p99: number;
}

async function load(url: string, conns: number, init: { method?: 'POST'; body?: string } = {}): Promise<Load> {
  const result = await autocannon({ url, connections: conns, duration: seconds, headers: { 'content-type': 'application/json' }, ...init });
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

const validateLoad = (base: string, apiKey: string, conns: number): Promise<Load> =>
  load(`${base}/auth/validate-api-key`, conns, { method: 'POST', body: JSON.stringify({ apiKey }) });

async function signLatency(url: string, apiKey: string, messages: string[]): Promise<number> {
  const times: number[] = [];
  const body = JSON.stringify({ messages, includeTime: true });
  for (let i = 0; i < signRounds; i++) {
    const t = process.hrtime.bigint();
    const res = await fetch(`${url}/auth/sign-messages/external`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body });
    if (res.status !== 200) throw new Error(`sign-messages answered ${res.status}`);
    await res.arrayBuffer();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(times);
}

/** The baseline: the same 100 signatures made in this process, signer already imported. */
function inProcessSigning(messages: string[]): number {
  const signer = createSigner(generateWallet().secretKey);
  const times: number[] = [];
  for (let i = 0; i < signRounds; i++) {
    const t = process.hrtime.bigint();
    const now = Date.now();
    for (const m of messages) signForExternal(signer, m, true, now);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(times);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const db = await testDatabase();
  const redis = await testRedis();
  const ports = await freePorts(SERVICES);
  const adminKey = generateApiKey();
  const stack = await launchServices({
    databaseUrl: db.url,
    redisUrl: redis.url,
    ports,
    only: SERVICES,
    logLevel: 'warn',
    onLine: () => undefined,
    env: { MASTER_KEY: randomBytes(32).toString('hex'), ADMIN_API_KEY: adminKey, INTERNAL_TOKEN: randomBytes(24).toString('hex') },
    serviceEnv: {
      // The bench hammers from one address: lift the per-address limit.
      'client-manager': { RATE_LIMIT_VALIDATE_PER_MINUTE: '100000000' },
    },
  });
  try {
    const gateway = stack.urls.gateway;
    const direct = stack.urls['client-manager'];
    const created = await fetch(`${gateway}/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', name: 'Bench' }),
    });
    if (created.status !== 200) throw new Error(`POST /users answered ${created.status}: ${await created.text()}`);
    const apiKey = ((await created.json()) as { apiKey: { key: string } }).apiKey.key;

    await validateLoad(direct, apiKey, connections); // warm: cache entry, JIT, keep-alive sockets
    await validateLoad(gateway, apiKey, connections);
    const rows: { label: string; base: Load; d: Load; g: Load }[] = [];
    for (const conns of [1, connections]) {
      const label = `${conns} connection${conns === 1 ? '' : 's'}`;
      rows.push({ label, base: await load(`${direct}/auth/scopes`, conns), d: await validateLoad(direct, apiKey, conns), g: await validateLoad(gateway, apiKey, conns) });
    }

    const messages = Array.from({ length: 100 }, (_, i) => `job-${i}-${randomBytes(8).toString('hex')}`);
    await signLatency(direct, apiKey, messages.slice(0, 10)); // warm the signer cache
    const signBaseline = inProcessSigning(messages);
    const signDirect = await signLatency(direct, apiKey, messages);
    const signGateway = await signLatency(gateway, apiKey, messages);

    const ok = (pass: boolean) => (pass ? 'OK' : 'ABOVE TARGET');
    console.log(`bench client-manager: ${connections} connections, ${seconds} s per load; ${signRounds} sign rounds`);
    console.log('  POST /auth/validate-api-key (warm cache); baseline GET /auth/scopes direct (same stack, no auth work)');
    for (const { label, base, d, g } of rows) {
      console.log(`    ${label}: baseline ${base.rps.toFixed(0)} req/s, p99 ${base.p99} ms`);
      console.log(`    ${label}: direct   ${d.rps.toFixed(0)} req/s (${(d.rps / base.rps).toFixed(2)}x baseline), p99 ${d.p99} ms ${ok(d.p99 < 5)}`);
      console.log(`    ${label}: gateway  ${g.rps.toFixed(0)} req/s (${(g.rps / d.rps).toFixed(2)}x direct), p99 ${g.p99} ms ${ok(g.p99 < 5)}`);
    }
    console.log('  POST /auth/sign-messages/external, 100 messages (median)');
    console.log(`    in-process signing (baseline): ${signBaseline.toFixed(2)} ms`);
    console.log(`    direct to client-manager:      ${signDirect.toFixed(2)} ms (${(signDirect / signBaseline).toFixed(1)}x baseline) ${ok(signDirect < 20)}`);
    console.log(`    through the gateway:           ${signGateway.toFixed(2)} ms (${(signGateway / signBaseline).toFixed(1)}x baseline) ${ok(signGateway < 20)}`);
  } finally {
    await stack.stop();
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
