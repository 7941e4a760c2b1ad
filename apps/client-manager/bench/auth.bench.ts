/**
 * The hot paths of client-manager, straight to the service and through the
 * HTTPS gateway, on loopback, bounded in time, against a bare express server
 * (in its own process, answering the same bytes) measured in the same run:
 *   1. GET /auth/scopes direct: at least 0.6x the bare server;
 *   2. POST /auth/validate-api-key with a warm cache, direct: at least 0.5x
 *      the bare server; through the HTTPS gateway p99 under 5 ms, both at
 *      BENCH_CONNECTIONS. The per-address limit is left at its default: a
 *      caller validating real keys is not throttled (only failures count);
 *   3. POST /auth/sign-messages/external with 100 messages: median latency
 *      against signing the same 100 messages in-process (target under 20 ms).
 *
 * The loads run interleaved, BENCH_ROUNDS times, and each keeps its best round.
 *
 *   nx run client-manager:bench   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_SIGN_ROUNDS, BENCH_PROFILE_DIR)
 */
import { randomBytes } from 'node:crypto';
import { createSigner, generateWallet, signForExternal } from '@ocg/auth';
import { interleaved, load, perCore, perCoreLine, profileEnv, ratioLine, startBareServer, verdict, type Load, runBench } from '@ocg/testing';
import { startHttpsStack } from './https-stack';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const signRounds = Number(process.env.BENCH_SIGN_ROUNDS ?? 200);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const get = (url: string): Promise<Load> => load(url, { connections, seconds });
const validate = (base: string, apiKey: string): Promise<Load> => load(`${base}/auth/validate-api-key`, { connections, seconds, method: 'POST', body: JSON.stringify({ apiKey }) });

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
  const { stack, direct, gateway, apiKey, stop } = await startHttpsStack(profileEnv());
  let bare: Awaited<ReturnType<typeof startBareServer>> | undefined;
  try {
    const bareServer = await startBareServer(await (await fetch(`${direct}/auth/scopes`)).text());
    bare = bareServer;

    // Warm-up: cache entry, JIT, keep-alive sockets.
    await get(bareServer.url);
    await get(`${direct}/auth/scopes`);
    await validate(direct, apiKey);
    await validate(gateway, apiKey);
    const pids = { 'client-manager': stack.processes.get('client-manager')?.child.pid, gateway: stack.processes.get('gateway')?.child.pid };
    const cm = { 'client-manager': pids['client-manager'] };
    const best = await interleaved(rounds, {
      baseline: () => perCore({ bare: bareServer.pid }, () => get(bareServer.url), seconds),
      scopes: () => perCore(cm, () => get(`${direct}/auth/scopes`), seconds),
      validDirect: () => perCore(cm, () => validate(direct, apiKey), seconds),
      validGateway: () => perCore(pids, () => validate(gateway, apiKey), seconds),
    });
    const { baseline, scopes, validDirect, validGateway } = best;
    const coreRatio = (m: typeof scopes) => (m.perCore['client-manager'] ?? NaN) / (baseline.perCore['bare'] ?? NaN);
    const messages = Array.from({ length: 100 }, (_, i) => `job-${i}-${randomBytes(8).toString('hex')}`);
    await signLatency(direct, apiKey, messages.slice(0, 10)); // warm the signer cache
    const signBaseline = inProcessSigning(messages);
    const signDirect = await signLatency(direct, apiKey, messages);
    const signGateway = await signLatency(gateway, apiKey, messages);

    const row = (label: string, l: Load, per?: Record<string, number | undefined>) =>
      `    ${label.padEnd(42)} ${l.rps.toFixed(0).padStart(6)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms${per ? `; ${perCoreLine(per)}` : ''}`;
    console.log(`bench client-manager: ${connections} connections, ${seconds} s per load, best of ${rounds} interleaved rounds; ${signRounds} sign rounds`);
    console.log(row('bare express, same bytes (baseline)', baseline.load, baseline.perCore));
    console.log(row('GET /auth/scopes direct', scopes.load, scopes.perCore));
    console.log(row('POST /auth/validate-api-key direct', validDirect.load, validDirect.perCore));
    console.log(row('POST /auth/validate-api-key HTTPS gateway', validGateway.load, validGateway.perCore));
    console.log(`  GET /auth/scopes direct / baseline:            ${ratioLine(scopes.load.rps, baseline.load.rps, 0.6)}; per core ${coreRatio(scopes).toFixed(2)}x`);
    console.log(`  validate-api-key (warm) direct / baseline:     ${ratioLine(validDirect.load.rps, baseline.load.rps, 0.5)}; per core ${coreRatio(validDirect).toFixed(2)}x`);
    console.log(`  validate-api-key via HTTPS gateway p99:        ${validGateway.load.p99} ms (target < 5 ms) ${verdict(validGateway.load.p99 < 5, 'ABOVE TARGET')}`);
    console.log('  POST /auth/sign-messages/external, 100 messages (median)');
    console.log(`    in-process signing (baseline): ${signBaseline.toFixed(2)} ms`);
    console.log(`    direct to client-manager:      ${signDirect.toFixed(2)} ms (${(signDirect / signBaseline).toFixed(1)}x baseline) ${verdict(signDirect < 20, 'ABOVE TARGET')}`);
    console.log(
      `    through the HTTPS gateway:     ${signGateway.toFixed(2)} ms (${(signGateway / signBaseline).toFixed(1)}x baseline) ${verdict(signGateway < 20, 'ABOVE TARGET')}`,
    );
  } finally {
    await bare?.stop();
    await stop();
  }
}

runBench(main);
