/**
 * CPU time per request of client-manager's request listener with no socket
 * in between: node's own `IncomingMessage` and `ServerResponse` over a
 * socket that discards what is written, the request handed to the server's
 * 'request' listeners (the graceful-shutdown hook, then the app) as node's
 * parser would. No parser, no syscalls, no load generator: what is left is
 * the pipeline's own work, the figure that loopback runs on a shared machine
 * blur. A bare express app answering the same bytes is measured in the same
 * way, loads interleaved, best round kept.
 *
 *   tsx tools/testenv/run.ts --no-docker -- tsx apps/client-manager/bench/listener-cpu.ts
 *   (LISTENER_REQUESTS per round, LISTENER_ROUNDS, LISTENER_IN_FLIGHT, LOG_LEVEL,
 *    LISTENER_PROFILE=<file.cpuprofile>: V8 profile of the service loads)
 */
import { writeFileSync } from 'node:fs';
import http, { IncomingMessage, ServerResponse } from 'node:http';
import { Session } from 'node:inspector/promises';
import { Duplex } from 'node:stream';
import { runBench } from '@ocg/testing';
import { startWarmApp } from './warm-app';

interface Shot {
  method: 'GET' | 'POST';
  url: string;
  body?: Buffer;
}

/** A socket that takes every write and keeps nothing; it never reads. */
function nullSocket(): Duplex {
  const socket = new Duplex({
    read() {
      // nothing to read: fire() pushes each request's body itself
    },
    write(_chunk, _encoding, callback) {
      callback();
    },
    writev(_chunks, callback) {
      callback();
    },
  });
  Object.assign(socket, { remoteAddress: '127.0.0.1', remotePort: 50000, encrypted: undefined, setTimeout: () => socket, setNoDelay: () => socket, setKeepAlive: () => socket });
  return socket;
}

/** The classes the server makes its requests and responses with (its IncomingMessage and ServerResponse options). */
function classesOf(server: http.Server): { Request: typeof IncomingMessage; Response: typeof ServerResponse } {
  const option = (name: string) => (server as unknown as Record<symbol, unknown>)[Object.getOwnPropertySymbols(server).find((s) => s.description === name)!];
  return { Request: option('IncomingMessage') as typeof IncomingMessage, Response: option('ServerResponse') as typeof ServerResponse };
}

/** One request, as node's parser hands it to the server: headers as a client sends them, the body streamed after. */
function fire(server: http.Server, { Request, Response }: ReturnType<typeof classesOf>, socket: Duplex, shot: Shot): Promise<number> {
  return new Promise((resolve) => {
    const req = new Request(socket as never);
    req.method = shot.method;
    req.url = shot.url;
    req.httpVersion = '1.1';
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    req.headers = shot.body
      ? { host: '127.0.0.1:3000', connection: 'keep-alive', 'content-type': 'application/json', 'content-length': String(shot.body.length) }
      : { host: '127.0.0.1:3000', connection: 'keep-alive' };
    req.rawHeaders = Object.entries(req.headers).flat() as string[];
    const res = new Response(req);
    res.shouldKeepAlive = true;
    res.assignSocket(socket as never);
    // What node's server does when an answer is finished: the socket goes back, 'close' comes on the next tick.
    res.on('finish', () => {
      res.detachSocket(socket as never);
      process.nextTick(() => {
        res.emit('close');
        resolve(res.statusCode);
      });
    });
    server.emit('request', req, res);
    if (shot.body) req.push(shot.body);
    // As the parser ends a message: complete first (an incomplete request that ends was aborted).
    req.complete = true;
    req.push(null);
  });
}

/** `count` requests, `inFlight` at a time (each on its own socket); the statuses that were not 200. */
async function run(server: http.Server, shot: Shot, count: number, inFlight: number): Promise<number> {
  let left = count;
  let bad = 0;
  const classes = classesOf(server);
  const lane = async () => {
    const socket = nullSocket();
    while (left-- > 0) if ((await fire(server, classes, socket, shot)) !== 200) bad++;
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return bad;
}

async function main(): Promise<void> {
  const requests = Number(process.env.LISTENER_REQUESTS ?? 20000);
  const rounds = Number(process.env.LISTENER_ROUNDS ?? 5);
  const inFlight = Number(process.env.LISTENER_IN_FLIGHT ?? 8);
  const { cm, validateBody, bareApp, close } = await startWarmApp();
  const bareServer = http.createServer(bareApp);
  const loads: Record<string, [http.Server, Shot]> = {
    bare: [bareServer, { method: 'GET', url: '/' }],
    scopes: [cm.server, { method: 'GET', url: '/auth/scopes' }],
    validate: [cm.server, { method: 'POST', url: '/auth/validate-api-key', body: Buffer.from(validateBody) }],
  };
  // LISTENER_LOADS=scopes,validate: only those (each server's objects alone in the process's inline caches).
  for (const name of Object.keys(loads)) if (process.env.LISTENER_LOADS && !process.env.LISTENER_LOADS.split(',').includes(name)) delete loads[name];
  const session = process.env.LISTENER_PROFILE ? new Session() : undefined;
  session?.connect();
  try {
    for (const [name, [server, shot]] of Object.entries(loads)) {
      if (process.env.LISTENER_DEBUG) console.log(`warm-up ${name}`);
      await run(server, shot, Math.min(requests, 5000), inFlight); // warm-up: JIT, the key's memory
    }
    if (session) {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 50 });
    }
    const best: Record<string, number> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [name, [server, shot]] of Object.entries(loads)) {
        if (session) await session.post('Profiler.start');
        const before = process.cpuUsage();
        const bad = await run(server, shot, requests, inFlight);
        const used = process.cpuUsage(before);
        if (session) {
          const { profile } = await session.post('Profiler.stop');
          writeFileSync(process.env.LISTENER_PROFILE!.replace(/(\.cpuprofile)?$/, `-${name}-${round}.cpuprofile`), JSON.stringify(profile));
        }
        if (bad > 0) throw new Error(`${name}: ${bad} requests not answered 200`);
        const us = (used.user + used.system) / requests;
        best[name] = Math.min(best[name] ?? Infinity, us);
        console.log(`round ${round + 1} ${name.padEnd(8)} ${us.toFixed(2).padStart(7)} µs CPU/request`);
      }
    }
    console.log(
      `best: ${Object.entries(best)
        .map(([name, us]) => `${name} ${us.toFixed(2)} µs${best.bare && name !== 'bare' ? ` (${(best.bare / us).toFixed(2)}x)` : ''}`)
        .join(', ')}`,
    );
  } finally {
    session?.disconnect();
    await close();
  }
}

runBench(main);
