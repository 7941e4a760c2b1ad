import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { WebSocket, WebSocketServer } from 'ws';
import { createAddressPolicy, createLogger, listen, type Logger, type RelaySet, type RunningServer } from '@ocg/http';
import { ensureLocalTls, freePort, testRedis } from '@ocg/testing';
import { createGateway, type Gateway } from '../src/app';
import { createIngress, type Ingress } from '../src/ingress';
import { IngressResolver } from '../src/ingress/resolver';
import { relayIngress } from '../src/ingress/relay';

const TOKEN = 'internal-token-for-gateway-tests';
const JOB = 'Fh3kX9aBcDeF';
const NODE = 'N0deAddrXyZ';
const CACHE_MS = 50;
const afterCache = () => new Promise((r) => setTimeout(r, CACHE_MS + 20));

/** The internal routes of deployment-manager and host-manager, as they answer (a real HTTP server). */
function controlPlane(jobs: Map<string, { job: string; status: string; node: string | null }>, nodes: Map<string, string>): http.RequestListener {
  return (req, res) => {
    if (req.headers['x-ocg-internal-token'] !== TOKEN) return void res.writeHead(401).end();
    const [, , kind, key] = (req.url ?? '').split('/');
    const id = decodeURIComponent(key ?? '').toLowerCase();
    const body =
      kind === 'jobs'
        ? [...jobs.values()].find((j) => j.job.toLowerCase() === id)
        : [...nodes.entries()].filter(([n]) => n.toLowerCase() === id).map(([address, ingressUrl]) => ({ address, ingressUrl }))[0];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
}

/** A node ingress: echoes what reached it, streams server-sent events, and echoes WebSocket messages. */
function nodeIngress(): http.RequestListener {
  return (req, res) => {
    if (req.url === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      setTimeout(() => res.end('data: last\n\n'), 300);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ host: req.headers.host, url: req.url, forwardedFor: req.headers['x-forwarded-for'] }));
  };
}

function get(base: string, host: string, path = '/'): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { headers: { host } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }));
      })
      .on('error', reject);
  });
}

/** A gateway with an ingress whose routes come from `controlPlane` at `cpUrl` (silent logs). */
function gatewayOf(cpUrl: string, redis: Redis, cache: { cacheMs: number; negativeMs?: number }, maxConnections?: number): { gateway: Gateway; ingress: Ingress; logger: Logger } {
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  const ingress = createIngress({
    nodeDomain: 'nodes.example.test',
    timeoutMs: 5000,
    logger,
    policy: createAddressPolicy({ allowPrivate: true }),
    resolver: new IngressResolver({ deploymentManagerUrl: cpUrl, hostManagerUrl: cpUrl, internalToken: TOKEN, ...cache }),
    maxConnections,
  });
  return { gateway: createGateway({ logger, redis, document: { paths: {} }, upstreams: {}, upstreamTimeoutMs: 1000, ingress }), ingress, logger };
}

// Each behaviour holds both ways a job host's request is served: by the HTTP server, and relayed on the connection (ADR 0084).
describe.each([
  ['served by the HTTP server', false],
  ['relayed', true],
])('gateway ingress by host, %s', (_mode, relayed) => {
  const jobs = new Map<string, { job: string; status: string; node: string | null }>();
  const nodes = new Map<string, string>();
  let cp: RunningServer;
  let node: RunningServer;
  let wss: WebSocketServer;
  let server: RunningServer;
  let gateway: Gateway;
  let redis: Redis;
  let relays: RelaySet | undefined;

  beforeAll(async () => {
    cp = await listen(controlPlane(jobs, nodes), { host: '127.0.0.1', port: 0 });
    node = await listen(nodeIngress(), { host: '127.0.0.1', port: 0 });
    wss = new WebSocketServer({ server: node.server });
    wss.on('connection', (socket, req) => socket.on('message', (m) => socket.send(`${req.headers.host} says ${m.toString()}`)));
    nodes.set(NODE, node.url);
    redis = new Redis((await testRedis()).url);
    const made = gatewayOf(cp.url, redis, { cacheMs: CACHE_MS, negativeMs: CACHE_MS });
    const { logger, ingress } = made;
    gateway = made.gateway;
    server = await listen(gateway.handle, { host: '127.0.0.1', port: 0 });
    server.server.on('upgrade', gateway.upgrade);
    if (relayed) relays = relayIngress(server.server, { ingress, logger, timeoutMs: 5000, secure: false });
  });

  afterAll(async () => {
    wss.close();
    await Promise.all([relays?.close(1000), server.close(), cp.close(), node.close()]);
    gateway.close();
    redis.disconnect();
  });

  beforeEach(async () => {
    jobs.set(JOB, { job: JOB, status: 'RUNNING', node: NODE });
    await afterCache();
  });

  it('proxies a running job to its node with the Host header unchanged, whatever its case', async () => {
    const host = `${JOB.toLowerCase()}-8080.nodes.example.test`;
    const res = await get(server.url, host, '/api/generate?x=1');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ host, url: '/api/generate?x=1' });
    expect(JSON.parse(res.body).forwardedFor).toBeTruthy();
    // Relayed: the keep-alive connection is still the relay's, not handed to the HTTP server.
    if (relays) expect(relays.size).toBe(1);
  });

  it('serves the not-found page while the job is queued', async () => {
    jobs.set(JOB, { job: JOB, status: 'QUEUED', node: null });
    await afterCache();
    const res = await get(server.url, `${JOB}.nodes.example.test`);
    expect(res.status).toBe(404);
    expect(res.type).toMatch(/text\/html/);
    expect(res.body).toContain('queued');
  });

  it('serves the not-found page for an address nobody knows', async () => {
    const res = await get(server.url, 'nosuchjob.nodes.example.test');
    expect(res.status).toBe(404);
    expect(res.body).toContain('No job or node has this address');
  });

  it('takes the service down once the job stops', async () => {
    expect((await get(server.url, `${JOB}.nodes.example.test`)).status).toBe(200);
    jobs.set(JOB, { job: JOB, status: 'STOPPED', node: NODE });
    await afterCache();
    const res = await get(server.url, `${JOB}.nodes.example.test`);
    expect(res.status).toBe(404);
    expect(res.body).toContain('stopped');
  });

  it("reaches a node's API at its address host", async () => {
    const res = await get(server.url, `${NODE.toLowerCase()}.nodes.example.test`, '/job/x/ops');
    expect(JSON.parse(res.body)).toMatchObject({ url: '/job/x/ops' });
  });

  it('streams server-sent events without waiting for the end of the response', async () => {
    const firstChunk = await new Promise<{ chunk: string; ended: boolean }>((resolve, reject) => {
      let ended = false;
      http
        .get(`${server.url}/events`, { headers: { host: `${JOB}.nodes.example.test` } }, (res) => {
          res.once('data', (d: Buffer) => resolve({ chunk: d.toString(), ended }));
          res.on('end', () => (ended = true));
        })
        .on('error', reject);
    });
    expect(firstChunk).toEqual({ chunk: 'data: first\n\n', ended: false });
  });

  it('passes WebSockets through to the job', async () => {
    const socket = new WebSocket(server.url.replace('http', 'ws') + '/ws', { headers: { host: `${JOB}.nodes.example.test` } });
    const reply = await new Promise<string>((resolve, reject) => {
      socket.on('open', () => socket.send('hello'));
      socket.on('message', (m) => resolve(m.toString()));
      socket.on('error', reject);
    });
    socket.close();
    expect(reply).toBe(`${JOB}.nodes.example.test says hello`);
  });

  it('answers 503 with a page when job routing is down', async () => {
    const port = await freePort();
    const logger = createLogger({ service: 'gateway', level: 'silent' });
    const ingress = createIngress({
      nodeDomain: 'nodes.example.test',
      timeoutMs: 1000,
      logger,
      policy: createAddressPolicy({ allowPrivate: true }),
      resolver: new IngressResolver({ deploymentManagerUrl: `http://127.0.0.1:${port}`, hostManagerUrl: `http://127.0.0.1:${port}`, internalToken: TOKEN, cacheMs: 0 }),
    });
    const down = createGateway({ logger, redis, document: { paths: {} }, upstreams: {}, upstreamTimeoutMs: 1000, ingress });
    const s = await listen(down.handle, { host: '127.0.0.1', port: 0 });
    const res = await get(s.url, `${JOB}.nodes.example.test`);
    await s.close();
    down.close();
    expect(res.status).toBe(503);
  });

  it('leaves API hosts to the API routes', async () => {
    const res = await get(server.url, '127.0.0.1', '/healthz');
    expect(res.status).toBe(200);
  });
});

describe('gateway ingress relaying to a node ingress at its connection limit', () => {
  it('serves the clients beyond the limit of relayed connections through the HTTP server and its pool', async () => {
    const jobs = new Map([[JOB, { job: JOB, status: 'RUNNING', node: NODE as string | null }]]);
    const nodes = new Map<string, string>();
    const cp = await listen(controlPlane(jobs, nodes), { host: '127.0.0.1', port: 0 });
    const node = await listen(nodeIngress(), { host: '127.0.0.1', port: 0 });
    const accepted: Array<{ destroyed: boolean }> = [];
    node.server.on('connection', (socket) => accepted.push(socket));
    const redis = new Redis((await testRedis()).url);
    const { gateway, ingress, logger } = gatewayOf(cp.url, redis, { cacheMs: 60_000 }, 2);
    const server = await listen(gateway.handle, { host: '127.0.0.1', port: 0 });
    const relays = relayIngress(server.server, { ingress, logger, timeoutMs: 5000, secure: false });
    nodes.set(NODE, node.url);
    // Six clients of a connection each, kept open: without the limit, six relayed connections to the node.
    const pools = Array.from({ length: 6 }, () => new Pool(server.url, { connections: 1 }));
    try {
      for (const pool of pools) {
        const res = await pool.request({ path: '/', method: 'GET', headers: { host: `${JOB.toLowerCase()}-8080.nodes.example.test` } });
        expect(res.statusCode).toBe(200);
        await res.body.text();
      }
      expect(accepted.filter((socket) => !socket.destroyed).length).toBeLessThanOrEqual(4); // two relayed, at most two pooled
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
      await Promise.all([relays.close(1000), server.close(), cp.close(), node.close()]);
      gateway.close();
      redis.disconnect();
    }
  });
});

describe('gateway ingress relayed over TLS', () => {
  let dir: string;
  let ca: Buffer;
  let node: RunningServer;
  let cp: RunningServer;
  let server: RunningServer;
  let gateway: Gateway;
  let relays: RelaySet;
  let redis: Redis;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocg-relay-tls-'));
    const tls = await ensureLocalTls({ dir, dnsNames: ['localhost', '*.nodes.example.test'], ips: ['127.0.0.1'] });
    ca = readFileSync(tls.caCertFile);
    node = await listen(nodeIngress(), { host: '127.0.0.1', port: 0 });
    cp = await listen(controlPlane(new Map([[JOB, { job: JOB, status: 'RUNNING', node: NODE }]]), new Map([[NODE, node.url]])), { host: '127.0.0.1', port: 0 });
    redis = new Redis((await testRedis()).url);
    const made = gatewayOf(cp.url, redis, { cacheMs: 60_000 });
    const { logger, ingress } = made;
    gateway = made.gateway;
    server = await listen(gateway.handle, { host: '127.0.0.1', port: 0, tls: { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) } });
    relays = relayIngress(server.server, { ingress, logger, timeoutMs: 5000, secure: true });
  });

  afterAll(async () => {
    await Promise.all([relays?.close(1000), server?.close(), cp?.close(), node?.close()]);
    gateway?.close();
    redis?.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('relays a job host on a kept-alive TLS connection, and hands an API host on another to the HTTP server', async () => {
    const host = `${JOB.toLowerCase()}.nodes.example.test`;
    const pool = new Pool(`https://127.0.0.1:${server.port}`, { connections: 1, connect: { ca, servername: host } });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await pool.request({ path: `/n${i}`, method: 'GET', headers: { host, 'x-forwarded-for': '6.6.6.6' } });
        const body = JSON.parse(await res.body.text());
        expect([res.statusCode, body.host, body.url, body.forwardedFor]).toEqual([200, host, `/n${i}`, '127.0.0.1']);
        expect(res.headers['x-request-id']).toBeTruthy();
        expect(String(res.headers.traceparent)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
      }
      expect(relays.size).toBe(1);
    } finally {
      await pool.close();
    }
    const api = new Pool(`https://127.0.0.1:${server.port}`, { connections: 1, connect: { ca, servername: 'localhost' } });
    try {
      const res = await api.request({ path: '/healthz', method: 'GET', headers: { host: 'localhost' } });
      expect([res.statusCode, await res.body.text()]).toEqual([200, '{"status":"ok"}']);
    } finally {
      await api.close();
    }
  });
});
