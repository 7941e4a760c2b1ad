/**
 * CPU time per request of client-manager's app against a bare express app
 * answering the same bytes, both served from this process over keep-alive
 * loopback connections while a child process (autocannon) sends the
 * requests: the figure to compare on a machine shared with other work, where
 * requests/s say more about the machine than about the code. Runs the loads
 * interleaved, CPU_ROUNDS times, and prints each load's best round.
 *
 *   tsx tools/testenv/run.ts --no-docker -- tsx apps/client-manager/bench/cpu-per-request.ts
 *   (CPU_REQUESTS per load, CPU_ROUNDS, CPU_CONNECTIONS, LOG_LEVEL, CPU_PROFILE=<file.cpuprofile>: V8 profile of the service loads,
 *   CPU_WALK=1: both loads again with every request walking express's stack instead of the route table, ADR 0089;
 *   CPU_EDGE=1: both loads again with the headers the gateway adds to a relayed request: x-forwarded-*, a request id, a trace context)
 * Beside them, `barePost`: bare express answering the validation's POST, its JSON body read by `express.json()`, with
 * the same bytes as client-manager: what the framework alone costs that kind of request.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Session } from 'node:inspector/promises';
import autocannon from 'autocannon';
import { runBench } from '@ocg/testing';
import { startWarmApp } from './warm-app';

interface LoadRequest {
  url: string;
  amount: number;
  connections: number;
  method: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}

/** The child: runs one autocannon load per message and answers with its counts. */
function loadChild(): void {
  process.on('message', (m: LoadRequest) => {
    void autocannon({
      url: m.url,
      amount: m.amount,
      connections: m.connections,
      method: m.method,
      body: m.body,
      headers: { ...(m.body === undefined ? {} : { 'content-type': 'application/json' }), ...m.headers },
    }).then((r) => process.send?.({ ok: r['2xx'], bad: r.non2xx + r.errors }));
  });
}

function send(child: ChildProcess, m: LoadRequest): Promise<{ ok: number; bad: number }> {
  return new Promise((resolve) => {
    child.once('message', (r) => resolve(r as { ok: number; bad: number }));
    child.send(m);
  });
}

async function main(): Promise<void> {
  const requests = Number(process.env.CPU_REQUESTS ?? 20000);
  const rounds = Number(process.env.CPU_ROUNDS ?? 5);
  const connections = Number(process.env.CPU_CONNECTIONS ?? 8);
  const { cm, cmWalk, validateBody, bareApp, barePostApp, close } = await startWarmApp();
  // As the bench's bare server starts it: app.listen, nothing else on the server.
  const serve = (app: typeof bareApp) =>
    new Promise<{ url: string; close(): Promise<void> }>((resolve) => {
      const server: Server = app.listen(0, '127.0.0.1', () =>
        resolve({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          close: () => {
            server.closeAllConnections();
            return new Promise<void>((done) => server.close(() => done()));
          },
        }),
      );
    });
  const bare = await serve(bareApp);
  const barePost = await serve(barePostApp);
  const child = fork(__filename, ['--load'], { execArgv: process.execArgv, stdio: 'inherit' });
  const loads: Record<string, LoadRequest> = {
    bare: { url: bare.url, amount: requests, connections, method: 'GET' },
    scopes: { url: `${cm.url}/auth/scopes`, amount: requests, connections, method: 'GET' },
    validate: { url: `${cm.url}/auth/validate-api-key`, amount: requests, connections, method: 'POST', body: validateBody },
    barePost: { url: `${barePost.url}/auth/validate-api-key`, amount: requests, connections, method: 'POST', body: validateBody },
  };
  if (process.env.CPU_WALK === '1') {
    loads.scopesWalk = { ...loads.scopes, url: `${cmWalk.url}/auth/scopes` };
    loads.validateWalk = { ...loads.validate, url: `${cmWalk.url}/auth/validate-api-key` };
  }
  if (process.env.CPU_EDGE === '1') {
    // The head as the gateway relays it (ADR 0086): who the client is, a request id, a trace context.
    const headers = {
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-host': 'api.example.test',
      'x-forwarded-proto': 'https',
      'x-request-id': '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    };
    loads.scopesEdge = { ...loads.scopes, headers };
    loads.validateEdge = { ...loads.validate, headers };
  }
  const session = process.env.CPU_PROFILE ? new Session() : undefined;
  session?.connect();
  try {
    for (const m of Object.values(loads)) await send(child, { ...m, amount: Math.min(requests, 5000) }); // warm-up: JIT, the key's memory
    if (session) {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
    }
    const best: Record<string, number> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [name, m] of Object.entries(loads)) {
        const profile = session !== undefined;
        if (profile) await session.post('Profiler.start');
        const before = process.cpuUsage();
        const r = await send(child, m);
        const used = process.cpuUsage(before);
        if (profile) {
          const { profile: p } = await session.post('Profiler.stop');
          writeFileSync(process.env.CPU_PROFILE!.replace(/(\.cpuprofile)?$/, `-${name}-${round}.cpuprofile`), JSON.stringify(p));
        }
        if (r.bad > 0) throw new Error(`${name}: ${r.bad} failed requests`);
        const us = (used.user + used.system) / r.ok;
        best[name] = Math.min(best[name] ?? Infinity, us);
        console.log(`round ${round + 1} ${name.padEnd(8)} ${us.toFixed(1).padStart(6)} µs CPU/request (${r.ok} requests)`);
      }
    }
    console.log(
      `best: bare ${best.bare.toFixed(1)} µs, scopes ${best.scopes.toFixed(1)} µs (${(best.bare / best.scopes).toFixed(2)}x), validate ${best.validate.toFixed(1)} µs (${(best.bare / best.validate).toFixed(2)}x)`,
    );
    console.log(
      `bare express POST reading the same body: ${best.barePost.toFixed(1)} µs (${(best.bare / best.barePost).toFixed(2)}x the bare GET); validate ${(best.barePost / best.validate).toFixed(2)}x it`,
    );
    if (best.scopesEdge !== undefined) {
      console.log(
        `with the gateway's headers: scopes ${best.scopesEdge.toFixed(1)} µs (${(best.bare / best.scopesEdge).toFixed(2)}x), validate ${best.validateEdge.toFixed(1)} µs (${(best.bare / best.validateEdge).toFixed(2)}x)`,
      );
    }
    if (best.scopesWalk !== undefined) {
      console.log(
        `walking express's stack: scopes ${best.scopesWalk.toFixed(1)} µs (${(best.bare / best.scopesWalk).toFixed(2)}x), validate ${best.validateWalk.toFixed(1)} µs (${(best.bare / best.validateWalk).toFixed(2)}x)`,
      );
    }
  } finally {
    session?.disconnect();
    child.kill();
    await bare.close();
    await barePost.close();
    await close();
  }
}

if (process.argv.includes('--load')) loadChild();
else runBench(main);
