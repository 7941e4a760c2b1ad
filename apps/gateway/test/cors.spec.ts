/**
 * CORS on the API host, over real HTTP against a real gateway and upstream:
 * each rule of CORS_ORIGINS as a browser would meet it. (The browser itself
 * is in e2e/test/client-package.spec.ts.)
 */
import http from 'node:http';
import { Redis } from 'ioredis';
import { createLogger, listen, Metrics, type RelaySet, type RunningServer } from '@ocg/http';
import { captureLogs, testRedis } from '@ocg/testing';
import { createGateway, type Gateway } from '../src/app';
import { CORS_MAX_AGE_SECONDS } from '../src/cors';
import { loadConfig } from '../src/config';
import type { Ingress } from '../src/ingress';

const FRONTEND = 'https://app.example.com';
const DEV = 'http://127.0.0.1:5173';

/** An upstream that varies by Accept and answers CORS for everyone: the gateway must not let that through. */
const upstream: http.RequestListener = (req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', vary: 'Accept', 'access-control-allow-origin': '*', 'retry-after': '7' });
  res.end(JSON.stringify({ method: req.method, url: req.url }));
};

/** The job hosts: their answers are the job's own business, CORS included. */
const jobHosts: Ingress = {
  matches: (host) => Boolean(host?.endsWith('.nodes.localhost')),
  relayRoute: () => undefined,
  handle: (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('job');
  },
  upgrade: (_req, socket) => socket.destroy(),
  close: () => undefined,
};

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(base: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject).end();
  });
}

const preflight = (origin: string, method = 'POST', headers = 'authorization,content-type') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': headers,
});

// Served by the HTTP server, and with API requests relayed as bytes (ADR 0086; those with an Origin go to the HTTP server).
describe.each([false, true])('CORS on the API host (relayed: %s)', (relayed) => {
  let service: RunningServer;
  let redis: Redis;
  const gateways: Array<{ gateway: Gateway; server: RunningServer; relays?: RelaySet }> = [];
  const logs = captureLogs();
  let base: string;
  let plain: string;

  async function start(corsOrigins?: string[], metrics?: Metrics): Promise<string> {
    const gateway = createGateway({
      metrics,
      logger: createLogger({ service: 'gateway', destination: logs.stream }),
      redis,
      document: { paths: { '/markets': { get: { 'x-service': 'svc' }, post: { 'x-service': 'svc' } } } },
      upstreams: { svc: service.url },
      upstreamTimeoutMs: 2000,
      ingress: jobHosts,
      corsOrigins,
    });
    const server = await listen(gateway.handle, { host: '127.0.0.1', port: 0 });
    gateways.push({ gateway, server, relays: relayed ? gateway.relayApi(server.server, false) : undefined });
    return server.url;
  }

  beforeAll(async () => {
    service = await listen(upstream, { host: '127.0.0.1', port: 0 });
    redis = new Redis((await testRedis()).url);
    base = await start(loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', CORS_ORIGINS: `${FRONTEND}, ${DEV}` }).CORS_ORIGINS);
    plain = await start(loadConfig({ REDIS_URL: 'redis://127.0.0.1:1' }).CORS_ORIGINS);
  });

  afterAll(async () => {
    for (const { gateway, server, relays } of gateways) {
      await relays?.close(1000);
      await server.close();
      gateway.close();
    }
    await service.close();
    redis.disconnect();
  });

  it("answers a listed origin's preflight 204 with methods, headers, credentials and a max-age", async () => {
    const res = await send(base, 'OPTIONS', '/markets', preflight(FRONTEND));
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['access-control-allow-origin']).toBe(FRONTEND);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST, PUT, PATCH, DELETE');
    expect(res.headers['access-control-allow-headers']!.toLowerCase().split(', ')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'x-request-id', 'traceparent', 'tracestate']),
    );
    expect(res.headers['access-control-max-age']).toBe(String(CORS_MAX_AGE_SECONDS));
    expect(res.headers.vary).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('observes preflights under the route label preflight, answered or refused, never as unmatched', async () => {
    const metrics = new Metrics('gateway');
    const counted = await start(loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', CORS_ORIGINS: FRONTEND }).CORS_ORIGINS, metrics);
    expect((await send(counted, 'OPTIONS', '/markets', preflight(FRONTEND))).status).toBe(204);
    expect((await send(counted, 'OPTIONS', '/markets', preflight('https://evil.example'))).status).toBe(403);
    const observed = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'ocg_http_request_duration_seconds');
    const counts = (observed?.values ?? []).filter((v) => 'metricName' in v && v.metricName === 'ocg_http_request_duration_seconds_count').map((v) => [v.labels, v.value]);
    expect(counts).toEqual(
      expect.arrayContaining([
        [{ method: 'OPTIONS', route: 'preflight', status: 204 }, 1],
        [{ method: 'OPTIONS', route: 'preflight', status: 403 }, 1],
      ]),
    );
    expect(counts.length).toBe(2);
  });

  it('refuses the preflight of any other origin with 403 and no CORS headers, and never reflects it', async () => {
    for (const origin of ['https://evil.example', 'https://app.example.com.evil.example', 'http://app.example.com', 'null']) {
      const res = await send(base, 'OPTIONS', '/markets', preflight(origin));
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ name: 'ForbiddenError', status: 403, code: 'CORS_ORIGIN_NOT_ALLOWED' });
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      expect(res.headers.vary).toBe('Origin');
    }
  });

  it('lets a listed origin read the answer with credentials and the headers the client needs', async () => {
    const res = await send(base, 'GET', '/markets', { origin: DEV, authorization: 'Bearer k' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ method: 'GET', url: '/markets' });
    expect(res.headers['access-control-allow-origin']).toBe(DEV);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-expose-headers']!.toLowerCase().split(', ')).toEqual(expect.arrayContaining(['x-request-id', 'retry-after', 'location', 'traceparent']));
    // The service's Vary is kept and Origin added to it.
    expect(res.headers.vary).toBe('Origin, Accept');
  });

  it('gives any other origin no CORS headers, whatever the service said', async () => {
    const res = await send(base, 'GET', '/markets', { origin: 'https://evil.example' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(res.headers.vary).toBe('Origin, Accept');
  });

  it('marks answers without an Origin as varying by it, so caches keep them apart', async () => {
    const res = await send(base, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.vary).toBe('Origin');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("marks an API answer without an Origin as varying by it too, without the service's CORS headers, relayed or not", async () => {
    const res = await new Promise<Answer>((resolve, reject) => {
      // A connection of its own: one that met an Origin is served by the HTTP server from then on.
      http
        .get(`${base}/markets`, { agent: false, headers: { 'x-request-id': `cors-no-origin-${relayed}` } }, (r) => {
          r.resume().on('end', () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body: '' }));
        })
        .on('error', reject);
    });
    expect(res.status).toBe(200);
    expect(res.headers.vary).toBe('Origin, Accept');
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(res.headers['retry-after']).toBe('7');
    await new Promise((r) => setTimeout(r, 50));
    expect(logs.lines().find((l: any) => l.requestId === `cors-no-origin-${relayed}`)?.relayed).toBe(relayed ? true : undefined);
  });

  it('leaves an OPTIONS that is no preflight to the routes (405)', async () => {
    const res = await send(base, 'OPTIONS', '/markets', { origin: FRONTEND });
    expect(res.status).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBe(FRONTEND);
  });

  it("never touches job hosts: their answers, preflights included, are the job's own", async () => {
    const res = await send(base, 'OPTIONS', '/markets', { ...preflight(FRONTEND), host: 'abc.nodes.localhost' });
    expect(res.status).toBe(200);
    expect(res.body).toBe('job');
    expect(res.headers.vary).toBeUndefined();
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it("adds no CORS headers at all without CORS_ORIGINS (the service's own are dropped only when CORS is on)", async () => {
    const pre = await send(plain, 'OPTIONS', '/markets', preflight(FRONTEND));
    expect(pre.status).toBe(405);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const res = await send(plain, 'GET', '/markets', { origin: FRONTEND });
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toBe('Accept');
  });

  it('refuses a CORS_ORIGINS entry that is not an exact origin, naming the variable', () => {
    for (const bad of ['*', 'https://*.example.com', 'https://app.example.com/ui', 'app.example.com', 'ftp://files.example.com', 'null']) {
      expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS/);
    }
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', CORS_ORIGINS: 'HTTPS://App.Example.com:443/' }).CORS_ORIGINS).toEqual([FRONTEND]);
  });
});
