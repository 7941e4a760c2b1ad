/**
 * The gateway's API path: GET /auth/scopes through the gateway (plain HTTP,
 * so the proxy is what is measured, not TLS) against the same request
 * straight to client-manager, on loopback, bounded in time, measured in the
 * same run. Prints requests/s, p99 and the ratio. Target: the gateway path at
 * least 0.8x direct.
 *
 *   nx run gateway:bench   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_PROFILE_DIR)
 */
import { freePorts, interleaved, launchServices, load, perCore, perCoreLine, profileEnv, ratioLine, testDatabase, testRedis } from '@ocg/testing';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const measure = (url: string) => load(url, { connections, seconds });

async function main(): Promise<void> {
  const db = await testDatabase();
  const redis = await testRedis();
  const ports = await freePorts(['gateway', 'client-manager', 'host-manager', 'deployment-manager']);
  const stack = await launchServices({ databaseUrl: db.url, redisUrl: redis.url, ports, logLevel: 'warn', onLine: () => undefined, env: profileEnv() });
  try {
    const direct = `${stack.urls['client-manager']}/auth/scopes`;
    const viaGateway = `${stack.urls.gateway}/auth/scopes`;
    await measure(direct); // warm both paths: JIT, keep-alive sockets
    await measure(viaGateway);
    const pid = (name: string) => stack.processes.get(name)?.child.pid;
    const best = await interleaved(rounds, {
      direct: () => perCore({ 'client-manager': pid('client-manager') }, () => measure(direct), seconds),
      gateway: () => perCore({ gateway: pid('gateway'), 'client-manager': pid('client-manager') }, () => measure(viaGateway), seconds),
    });
    const [d, g, cpu] = [best.direct.load, best.gateway.load, best.gateway.perCore];
    console.log(`bench gateway: GET /auth/scopes, ${connections} connections, ${seconds} s each, best of ${rounds} interleaved rounds`);
    console.log(`  direct to client-manager: ${d.rps.toFixed(0)} req/s, p99 ${d.p99} ms`);
    console.log(`  through the gateway:      ${g.rps.toFixed(0)} req/s, p99 ${g.p99} ms`);
    console.log(`  CPU through the gateway:  ${perCoreLine(cpu)}`);
    console.log(`  ratio gateway/direct:     ${ratioLine(g.rps, d.rps, 0.8)}`);
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
