import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type net from 'node:net';
import { Redis } from 'ioredis';
import { openApiDocument } from '@ocg/api-spec';
import { Agent } from 'undici';
import { createLogger, listen, Metrics, type RelaySet, type RunningServer } from '@ocg/http';
import { captureLogs, ensureLocalTls, freePort, testRedis } from '@ocg/testing';
import { createGateway, type Gateway } from '../src/app';

/** A real upstream service that says who it is and what it received. */
function echoService(name: string): http.RequestListener {
  return (req, res) => {
    let size = 0;
    req.on('data', (chunk: Buffer) => (size += chunk.length));
    req.on('end', () => {
      if (req.url === '/beta/stall') return; // never answers
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          service: name,
          method: req.method,
          url: req.url,
          requestId: req.headers['x-request-id'],
          size,
          host: req.headers.host,
          internal: req.headers['x-ocg-internal-token'] ?? null,
        }),
      );
    });
  };
}

const document = {
  paths: {
    '/alpha': { get: { 'x-service': 'a' }, post: { 'x-service': 'a' } },
    '/beta/{id}': { get: { 'x-service': 'b' } },
    '/beta/special': { get: { 'x-service': 'a' } },
    '/gone': { get: { 'x-service': 'down' } },
  },
};

// Served by the HTTP server, and relayed as bytes (ADR 0086): the same answers either way.
describe.each([false, true])('gateway routing (relayed: %s)', (relayed) => {
  let a: RunningServer;
  let b: RunningServer;
  let gatewayServer: RunningServer;
  let gateway: Gateway;
  let redis: Redis;
  let base: string;
  let relays: RelaySet | undefined;
  // Relayed, a connection a request: one the HTTP server serves (a 404, a service down) keeps its connection there.
  const fresh = new Agent({ pipelining: 0 });
  const fetch = (url: string, init: RequestInit = {}) => globalThis.fetch(url, relayed ? ({ ...init, dispatcher: fresh } as RequestInit) : init);
  const logs = captureLogs();

  beforeAll(async () => {
    a = await listen(echoService('a'), { host: '127.0.0.1', port: 0 });
    b = await listen(echoService('b'), { host: '127.0.0.1', port: 0 });
    redis = new Redis((await testRedis()).url);
    const deadPort = await freePort();
    gateway = createGateway({
      logger: createLogger({ service: 'gateway', destination: logs.stream }),
      redis,
      document,
      upstreams: { a: a.url, b: b.url, down: `http://127.0.0.1:${deadPort}` },
      upstreamTimeoutMs: 500,
      upstreamIdleMs: 300,
    });
    gatewayServer = await listen(gateway.handle, { host: '127.0.0.1', port: 0 });
    base = gatewayServer.url;
    if (relayed) relays = gateway.relayApi(gatewayServer.server, false);
  });

  afterAll(async () => {
    await fresh.close();
    await relays?.close(1000);
    await gatewayServer.close();
    gateway.close();
    await Promise.all([a.close(), b.close()]);
    redis.disconnect();
  });

  it('sends each path to the service its x-service names', async () => {
    expect(await ((await fetch(`${base}/alpha?x=1`)).json() as Promise<any>)).toMatchObject({ service: 'a', url: '/alpha?x=1' });
    expect(await ((await fetch(`${base}/beta/42`)).json() as Promise<any>)).toMatchObject({ service: 'b', url: '/beta/42' });
  });

  it('prefers a static path segment over a parameter', async () => {
    expect(await ((await fetch(`${base}/beta/special`)).json() as Promise<any>)).toMatchObject({ service: 'a' });
  });

  it('streams request bodies to the service', async () => {
    const body = 'x'.repeat(300000);
    const res = await fetch(`${base}/alpha`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
    expect(await (res.json() as Promise<any>)).toMatchObject({ service: 'a', method: 'POST', size: 300000 });
  });

  it('never forwards the internal service credential from outside', async () => {
    const res = await fetch(`${base}/alpha`, { headers: { 'x-ocg-internal-token': 'forged' } });
    expect((await (res.json() as Promise<any>)).internal).toBeNull();
  });

  it('forwards a sane request id and echoes it', async () => {
    const res = await fetch(`${base}/alpha`, { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    expect((await (res.json() as Promise<any>)).requestId).toBe('abc-123');
  });

  it('replaces an insane request id with a generated one', async () => {
    const res = await fetch(`${base}/alpha`, { headers: { 'x-request-id': 'bad id with spaces' } });
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await (res.json() as Promise<any>)).requestId).toBe(id);
  });

  it('generates a request id when none is given', async () => {
    const res = await fetch(`${base}/beta/1`);
    expect((await (res.json() as Promise<any>)).requestId).toBe(res.headers.get('x-request-id'));
  });

  it('answers 503 with the error shape when the service is down', async () => {
    const res = await fetch(`${base}/gone`);
    expect(res.status).toBe(503);
    expect(await (res.json() as Promise<any>)).toMatchObject({
      name: 'ServiceUnavailableError',
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('answers 504 when the service stalls past the timeout', async () => {
    const res = await fetch(`${base}/beta/stall`);
    expect(res.status).toBe(504);
    expect(await (res.json() as Promise<any>)).toMatchObject({ name: 'GatewayTimeoutError', code: 'UPSTREAM_TIMEOUT' });
  });

  it('answers 404 with the error shape for a path not in the contract', async () => {
    const res = await fetch(`${base}/nowhere`);
    expect(res.status).toBe(404);
    expect(await (res.json() as Promise<any>)).toMatchObject({ name: 'NotFoundError', status: 404 });
  });

  it('answers 405 for a known path with another method', async () => {
    const res = await fetch(`${base}/beta/1`, { method: 'DELETE' });
    expect(res.status).toBe(405);
  });

  it('logs one line per request with its request id', async () => {
    await fetch(`${base}/alpha`, { headers: { 'x-request-id': 'log-me-1' } });
    await new Promise((r) => setTimeout(r, 50));
    expect(logs.lines().some((l: any) => l.requestId === 'log-me-1' && l.status === 200)).toBe(true);
  });

  it("logs signed node calls' successes at debug, their failures as any other", async () => {
    await fetch(`${base}/alpha`, { headers: { 'x-request-id': 'log-node-ok', 'x-ocg-node': 'node-address' } });
    await fetch(`${base}/nowhere`, { headers: { 'x-request-id': 'log-node-404', 'x-ocg-node': 'node-address' } });
    await new Promise((r) => setTimeout(r, 50));
    expect(logs.lines().some((l: any) => l.requestId === 'log-node-ok')).toBe(false);
    expect(logs.lines().some((l: any) => l.requestId === 'log-node-404' && l.status === 404)).toBe(true);
  });

  it('logs whether the request was relayed', async () => {
    await fetch(`${base}/alpha`, { headers: { 'x-request-id': 'log-relayed' } });
    await new Promise((r) => setTimeout(r, 50));
    expect(logs.lines().find((l: any) => l.requestId === 'log-relayed')?.relayed).toBe(relayed ? true : undefined);
  });

  it('keeps the connection after a 504 and serves the next request on it', async () => {
    const agent = new Agent({ connections: 1 });
    try {
      const stalled = await globalThis.fetch(`${base}/beta/stall`, { dispatcher: agent } as RequestInit);
      expect(stalled.status).toBe(504);
      expect(await (stalled.json() as Promise<any>)).toMatchObject({ code: 'UPSTREAM_TIMEOUT', requestId: stalled.headers.get('x-request-id') });
      const next = await globalThis.fetch(`${base}/beta/7`, { dispatcher: agent, headers: { 'x-request-id': 'after-504' } } as RequestInit);
      expect(await (next.json() as Promise<any>)).toMatchObject({ service: 'b', url: '/beta/7', requestId: 'after-504' });
      expect(next.headers.get('x-request-id')).toBe('after-504');
    } finally {
      await agent.close();
    }
  });

  (relayed ? it : it.skip)('closes an idle service connection before the service would, and opens another for the next request', async () => {
    const opened: net.Socket[] = [];
    const track = (socket: net.Socket) => opened.push(socket);
    a.server.on('connection', track);
    const agent = new Agent({ connections: 1 });
    try {
      expect((await globalThis.fetch(`${base}/alpha`, { dispatcher: agent } as RequestInit)).status).toBe(200);
      expect(opened).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 600));
      // The client's connection is still open; the service's was closed by the gateway (its own keep-alive timeout is 5 s).
      expect(opened[0].destroyed).toBe(true);
      expect(await ((await globalThis.fetch(`${base}/alpha?again=1`, { dispatcher: agent } as RequestInit)).json() as Promise<any>)).toMatchObject({ url: '/alpha?again=1' });
      expect(opened).toHaveLength(2);
    } finally {
      a.server.off('connection', track);
      await agent.close();
    }
  });

  it('reports ready while Redis answers', async () => {
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expect(await (res.json() as Promise<any>)).toMatchObject({ status: 'ready' });
  });
});

describe('gateway routing relayed over TLS', () => {
  let dir: string;
  let service: RunningServer;
  let server: RunningServer;
  let gateway: Gateway;
  let relays: RelaySet | undefined;
  let redis: Redis;
  let agent: Agent;
  const logs = captureLogs();
  const metrics = new Metrics('gateway');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocg-relay-tls-'));
    const tls = await ensureLocalTls({ dir, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
    agent = new Agent({ connect: { ca: readFileSync(tls.caCertFile), servername: 'localhost' } });
    service = await listen(echoService('a'), { host: '127.0.0.1', port: 0 });
    redis = new Redis((await testRedis()).url);
    gateway = createGateway({
      logger: createLogger({ service: 'gateway', destination: logs.stream }),
      redis,
      document,
      upstreams: { a: service.url, b: service.url, down: service.url },
      upstreamTimeoutMs: 1000,
      metrics,
    });
    server = await listen(gateway.handle, { host: '127.0.0.1', port: 0, tls: { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) } });
    relays = gateway.relayApi(server.server, true);
  });

  afterAll(async () => {
    await agent.close();
    await relays?.close(1000);
    await server.close();
    gateway.close();
    await service.close();
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('relays API requests once TLS is set up, the request id both ways', async () => {
    for (const id of ['tls-relayed-1', 'tls-relayed-2']) {
      const res = await globalThis.fetch(`${server.url}/alpha`, { dispatcher: agent, headers: { 'x-request-id': id } } as RequestInit);
      expect(res.headers.get('x-request-id')).toBe(id);
      expect(await (res.json() as Promise<any>)).toMatchObject({ service: 'a', requestId: id });
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(logs.lines().filter((l: any) => l.requestId?.startsWith('tls-relayed-') && l.relayed === true)).toHaveLength(2);
  });

  it('observes relayed requests under their route template', async () => {
    await globalThis.fetch(`${server.url}/beta/12`, { dispatcher: agent } as RequestInit);
    const observed = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'ocg_http_request_duration_seconds');
    const counts = (observed?.values ?? []).filter((v) => 'metricName' in v && v.metricName === 'ocg_http_request_duration_seconds_count').map((v) => [v.labels, v.value]);
    expect(counts).toEqual(expect.arrayContaining([[{ method: 'GET', route: '/beta/{id}', status: 200 }, 1]]));
  });
});

describe('gateway relaying to a service at its connection limit', () => {
  it('serves the clients beyond UPSTREAM_MAX_SOCKETS relayed connections through the HTTP server and its pool', async () => {
    const service = await listen(echoService('a'), { host: '127.0.0.1', port: 0 });
    const accepted: net.Socket[] = [];
    service.server.on('connection', (socket: net.Socket) => accepted.push(socket));
    const redis = new Redis((await testRedis()).url);
    const logs = captureLogs();
    const gateway = createGateway({
      logger: createLogger({ service: 'gateway', destination: logs.stream }),
      redis,
      document,
      upstreams: { a: service.url, b: service.url, down: service.url },
      upstreamTimeoutMs: 1000,
      upstreamMaxSockets: 2,
    });
    const server = await listen(gateway.handle, { host: '127.0.0.1', port: 0 });
    const relays = gateway.relayApi(server.server, false);
    // Six clients of a connection each, every connection kept open: without the limit, six relayed service connections.
    const clients = Array.from({ length: 6 }, () => new Agent({ connections: 1 }));
    try {
      for (const [i, agent] of clients.entries()) {
        const res = await globalThis.fetch(`${server.url}/alpha`, { dispatcher: agent, headers: { 'x-request-id': `limit-${i}` } } as RequestInit);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
      const answered = logs.lines().filter((l: any) => l.requestId?.startsWith('limit-'));
      expect(answered).toHaveLength(6);
      expect(answered.filter((l: any) => l.relayed === true)).toHaveLength(2);
      expect(accepted.filter((socket) => !socket.destroyed).length).toBeLessThanOrEqual(4); // two relayed, at most two pooled
    } finally {
      await Promise.all(clients.map((agent) => agent.close()));
      await relays.close(1000);
      await server.close();
      gateway.close();
      await service.close();
      redis.disconnect();
    }
  });
});

describe('gateway documents', () => {
  let server: RunningServer;
  let gateway: Gateway;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis((await testRedis()).url);
    gateway = createGateway({
      logger: createLogger({ service: 'gateway', level: 'silent' }),
      redis,
      document: openApiDocument,
      upstreams: { 'client-manager': 'http://127.0.0.1:1', 'host-manager': 'http://127.0.0.1:1', 'deployment-manager': 'http://127.0.0.1:1' },
      upstreamTimeoutMs: 1000,
    });
    server = await listen(gateway.handle, { host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await server.close();
    gateway.close();
    redis.disconnect();
  });

  it('serves the committed OpenAPI 3.1 document', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(await (res.json() as Promise<any>)).toEqual(openApiDocument);
  });

  it('serves a docs page and its assets without a CDN', async () => {
    const page = await (await fetch(`${server.url}/docs`)).text();
    expect(page).toContain('/openapi.json');
    expect(page).not.toMatch(/https?:\/\//);
    const asset = await fetch(`${server.url}/docs/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
  });

  it('refuses to start when a service in the contract has no base URL', () => {
    expect(() =>
      createGateway({ logger: createLogger({ service: 'gateway', level: 'silent' }), redis, document: openApiDocument, upstreams: {}, upstreamTimeoutMs: 1000 }),
    ).toThrow(/no base URL configured for service "(client|host|deployment)-manager"/);
  });
});
