/**
 * CPU per proxied request of the gateway's API hop, in-process: the gateway's
 * handler (as `main.ts` builds it: logs at warn, no tracing, metrics on)
 * served from this process (`relay`: the same with its API requests relayed
 * as bytes, ADR 0086) in front of a trivial upstream (its own process,
 * answering every request with the same bytes and headers a service would),
 * against a bare undici proxy in the same place. The load generator is a
 * process of its own too, so this process's `process.cpuUsage()` over a run,
 * divided by the requests served, is the hop's own CPU a request, whatever
 * else the machine does. Rounds are interleaved; the lowest of each is kept.
 *
 *   tsx apps/gateway/bench/hop-cpu.ts   (HOP_SECONDS, HOP_CONNECTIONS, HOP_ROUNDS, HOP_MODES: bare,gateway,relay;
 *   HOP_PROFILE=<file.cpuprofile>: a V8 CPU profile of the measured rounds alone, without startup)
 */
import http from 'node:http';
import { spawn, execFile } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { Pool } from 'undici';
import { openApiDocument } from '@ocg/api-spec';
import { createLogger, Metrics, NO_TRACING, type RelaySet } from '@ocg/http';
import { createGateway } from '../src/app';
import { runBench } from '@ocg/testing';

const seconds = Number(process.env.HOP_SECONDS ?? 3);
const connections = Number(process.env.HOP_CONNECTIONS ?? 16);
const rounds = Number(process.env.HOP_ROUNDS ?? 3);
const PATH = '/auth/scopes';

/** The upstream: one keep-alive HTTP server answering every request with a service's bytes (express's headers, the request id and trace echoed). */
const UPSTREAM = `
const http = require('node:http');
const body = Buffer.from(JSON.stringify({ scopes: ['jobs:read', 'jobs:write', 'markets:read', 'markets:write', 'nodes:read', 'nodes:write', 'account:read', 'account:write'].map((name) => ({ name, description: 'Lets the key ' + name.replace(':', ' ') + ' on behalf of its owner.' })) }));
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'x-request-id': req.headers['x-request-id'] ?? '', traceparent: req.headers.traceparent ?? '', 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8', 'content-length': body.length, etag: 'W/"2f1-abc"' });
  res.end(body);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

async function startUpstream(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['-e', UPSTREAM], { stdio: ['ignore', 'pipe', 'inherit'] });
  process.once('exit', () => child.kill());
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${line.toString().trim()}`, stop: () => child.kill() };
}

/** The floor: a bare undici proxy, the request's headers and the answer's passed as they are. */
function bareProxy(upstream: string): { handle: http.RequestListener; close(): void } {
  const pool = new Pool(upstream, { connections: 256 });
  const origin = new URL(upstream).origin;
  return {
    handle: (req, res) => {
      const headers: string[] = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        if (req.rawHeaders[i].toLowerCase() !== 'connection') headers.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
      }
      pool.dispatch(
        { origin, path: req.url ?? '/', method: req.method as 'GET', headers },
        {
          onRequestStart: () => undefined, // undici's handler API of v7 is chosen by this method's presence
          onResponseStart(_c, status, h) {
            delete h.connection;
            delete h['keep-alive'];
            res.writeHead(status, h as http.OutgoingHttpHeaders);
          },
          onResponseData(_c, chunk) {
            res.write(chunk);
          },
          onResponseEnd() {
            res.end();
          },
          onResponseError(_c, err) {
            res.destroy(err);
          },
        },
      );
    },
    close: () => void pool.destroy(),
  };
}

interface Proxy {
  handle: http.RequestListener;
  close(): void;
  /** Called with the server once it listens (the relay takes its connections). */
  attach?(server: http.Server): void;
}

function gatewayHandler(upstream: string, relayed = false): Proxy {
  const logger = createLogger({ service: 'gateway', level: 'warn' });
  const gateway = createGateway({
    logger,
    tracing: NO_TRACING,
    redis: {} as Redis,
    document: openApiDocument,
    upstreams: { 'client-manager': upstream, 'host-manager': upstream, 'deployment-manager': upstream },
    upstreamTimeoutMs: 30000,
    metrics: process.env.HOP_METRICS === '0' ? undefined : new Metrics('gateway', logger),
  });
  let relays: RelaySet | undefined;
  return {
    handle: gateway.handle,
    attach: relayed ? (server) => (relays = gateway.relayApi(server, false)) : undefined,
    close: () => {
      void relays?.close(0);
      gateway.close();
    },
  };
}

async function serve(handle: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer({ keepAliveTimeout: 60000 }, handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const run = promisify(execFile);
const autocannon = resolve(__dirname, '../../../node_modules/.bin/autocannon');

/** One load run from its own process; this process's CPU over it, a request. */
async function measure(url: string, secs: number): Promise<{ us: number; requests: number }> {
  const start = process.cpuUsage();
  const { stdout } = await run(autocannon, ['-c', String(connections), '-d', String(secs), '-j', url], { maxBuffer: 1 << 24 });
  const used = process.cpuUsage(start);
  const result = JSON.parse(stdout) as { requests: { total: number }; non2xx: number; errors: number };
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { us: (used.user + used.system) / result.requests.total, requests: result.requests.total };
}

async function main(): Promise<void> {
  const upstream = await startUpstream();
  const modes = (process.env.HOP_MODES ?? 'bare,gateway').split(',');
  const built: Record<string, (upstream: string) => Proxy> = { bare: bareProxy, gateway: (u) => gatewayHandler(u), relay: (u) => gatewayHandler(u, true) };
  const servers = new Map<string, { url: string; server: http.Server; close(): void }>();
  for (const mode of modes) {
    const proxy = built[mode](upstream.url);
    const served = await serve(proxy.handle);
    proxy.attach?.(served.server);
    servers.set(mode, { ...served, close: proxy.close });
  }
  try {
    for (const mode of modes) await measure(`${servers.get(mode)!.url}${PATH}`, 1); // warm: JIT, keep-alive sockets
    const session = process.env.HOP_PROFILE ? new Session() : undefined;
    session?.connect();
    await session?.post('Profiler.enable');
    await session?.post('Profiler.start');
    const best = new Map<string, number[]>();
    let served = 0;
    for (let i = 0; i < rounds; i++) {
      for (const mode of modes) {
        const m = await measure(`${servers.get(mode)!.url}${PATH}`, seconds);
        best.set(mode, [...(best.get(mode) ?? []), m.us]);
        served += m.requests;
      }
    }
    if (session) writeFileSync(process.env.HOP_PROFILE!, JSON.stringify((await session.post('Profiler.stop')).profile));
    console.log(`hop CPU: GET ${PATH}, ${connections} connections, ${seconds} s a run, ${rounds} interleaved rounds, ${served} requests (µs of this process's CPU a request)`);
    for (const [mode, all] of best) console.log(`  ${mode.padEnd(8)} min ${Math.min(...all).toFixed(1)}  runs ${all.map((u) => u.toFixed(1)).join(' ')}`);
  } finally {
    for (const s of servers.values()) {
      s.close();
      s.server.closeAllConnections();
      s.server.close();
    }
    upstream.stop();
  }
}

runBench(main);
