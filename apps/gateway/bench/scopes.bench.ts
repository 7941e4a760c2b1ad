/**
 * GET /auth/scopes through the gateway against the same request straight to
 * client-manager, on loopback, bounded in time. Prints requests/s, p99 and
 * the ratio. Target: the gateway path at least 0.6x direct.
 *
 *   tsx apps/gateway/bench/scopes.bench.ts   (BENCH_SECONDS, BENCH_CONNECTIONS)
 */
import autocannon from 'autocannon';
import { freePort, launchServices, testDatabase, testRedis } from '@ocg/testing';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

interface Measure {
  rps: number;
  p99: number;
}

async function measure(url: string): Promise<Measure> {
  const result = await autocannon({ url, connections, duration: seconds, pipelining: 1 });
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

async function main(): Promise<void> {
  const db = await testDatabase();
  const redis = await testRedis();
  const ports: Record<string, number> = {};
  for (const name of ['gateway', 'client-manager', 'host-manager', 'deployment-manager']) ports[name] = await freePort();
  const stack = await launchServices({ databaseUrl: db.url, redisUrl: redis.url, ports, logLevel: 'warn', onLine: () => undefined });
  try {
    const direct = `${stack.urls['client-manager']}/auth/scopes`;
    const viaGateway = `${stack.urls.gateway}/auth/scopes`;
    await measure(direct); // warm both paths: JIT, keep-alive sockets
    await measure(viaGateway);
    const d = await measure(direct);
    const g = await measure(viaGateway);
    const ratio = g.rps / d.rps;
    console.log(`bench gateway: GET /auth/scopes, ${connections} connections, ${seconds} s each`);
    console.log(`  direct to client-manager: ${d.rps.toFixed(0)} req/s, p99 ${d.p99} ms`);
    console.log(`  through the gateway:      ${g.rps.toFixed(0)} req/s, p99 ${g.p99} ms`);
    console.log(`  ratio gateway/direct:     ${ratio.toFixed(2)}x (target >= 0.60x) ${ratio >= 0.6 ? 'OK' : 'BELOW TARGET'}`);
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
