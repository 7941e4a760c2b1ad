import http from 'node:http';
import { Redis } from 'ioredis';
import { createLogger, listen, type RunningServer } from '@ocg/http';
import { freePort, testRedis } from '@ocg/testing';
import { createGateway, type Gateway } from '../src/app';
import { createPages } from '../src/pages';
import { prefersHtml } from '../src/pages/negotiate';

const TOKEN = 'internal-token-for-gateway-page-tests';
const JOB = 'J0bAddr3ss';
const MARKET = 'MarketAddr3ss';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

const document = {
  paths: {
    '/jobs/{job}': { get: { 'x-service': 'deployment-manager' } },
    '/jobs/{job}/stop': { post: { 'x-service': 'deployment-manager' } },
    '/markets/{market}': { get: { 'x-service': 'host-manager' } },
  },
};

/** The services as the gateway sees them: internal routes with the token, and an API that says it was reached. */
function service(name: string): http.RequestListener {
  const job = {
    address: JOB,
    status: 'QUEUED',
    reason: null,
    market: MARKET,
    node: null,
    pricePerSecond: 1000,
    durationSeconds: 60,
    totalPrice: 60000,
    billedSeconds: null,
    cost: null,
    settlement: 'open',
    url: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    startedAt: null,
    endsAt: null,
    finishedAt: null,
    ops: [{ id: 'task', group: 'task', opIndex: 0, status: 'pending', exitCode: null, reason: null, restarts: 0, startedAt: null, endedAt: null, logTail: [] }],
    endpoints: [],
  };
  const market = { address: MARKET, name: 'CPU pool', pricePerSecond: 1000, gpuRequired: false, defaultDurationSeconds: 60, maxDurationSeconds: 600 };
  const internal: Record<string, unknown> = {
    [`/internal/jobs/${JOB}/page`]: job,
    [`/internal/markets/${MARKET}`]: market,
    '/internal/markets/cpu%20pool': market,
    [`/internal/markets/${MARKET}/nodes?limit=100`]: { nodes: [], total: 0 },
    [`/internal/markets/${MARKET}/jobs?status=RUNNING&limit=50`]: { jobs: [], total: 0 },
  };
  return (req, res) => {
    const url = req.url ?? '';
    if (!url.startsWith('/internal/'))
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ api: name, url, authorization: req.headers.authorization ?? null }));
    if (req.headers['x-ocg-internal-token'] !== TOKEN) return void res.writeHead(401).end();
    const body = internal[url];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
}

async function get(base: string, path: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(`${base}${path}`, { method, headers });
  return { status: res.status, type: res.headers.get('content-type') ?? '', headers: res.headers, body: await res.text() };
}

describe('the Accept header decides between the page and the API', () => {
  it.each([
    [BROWSER, true],
    ['text/html', true],
    ['application/json, text/html', false],
    ['text/html;q=0.5, application/json', false],
    ['application/json;q=0.5, text/html', true],
    ['*/*', false],
    ['text/*', false],
    ['text/html;q=0', false],
    ['', false],
  ])('Accept %j prefers a page: %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });
});

describe('job and market pages through the gateway', () => {
  let dm: RunningServer;
  let hm: RunningServer;
  let server: RunningServer;
  let gateway: Gateway;
  let redis: Redis;

  const start = async (dmUrl: string, hmUrl: string) => {
    const logger = createLogger({ service: 'gateway', level: 'silent' });
    const pages = createPages({ deploymentManagerUrl: dmUrl, clientManagerUrl: dmUrl, hostManagerUrl: hmUrl, internalToken: TOKEN, logger, timeoutMs: 1000 });
    const g = createGateway({ logger, redis, document, upstreams: { 'deployment-manager': dmUrl, 'host-manager': hmUrl }, upstreamTimeoutMs: 1000, pages });
    return { g, s: await listen(g.handle, { host: '127.0.0.1', port: 0 }) };
  };

  beforeAll(async () => {
    dm = await listen(service('deployment-manager'), { host: '127.0.0.1', port: 0 });
    hm = await listen(service('host-manager'), { host: '127.0.0.1', port: 0 });
    redis = new Redis((await testRedis()).url);
    ({ g: gateway, s: server } = await start(dm.url, hm.url));
  });

  afterAll(async () => {
    await Promise.all([server.close(), dm.close(), hm.close()]);
    gateway.close();
    redis.disconnect();
  });

  it('serves the job page to a browser', async () => {
    const res = await get(server.url, `/jobs/${JOB}`, { accept: BROWSER });
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html; charset=utf-8');
    expect(res.body).toContain(`<h1>Job <code>${JOB}</code></h1>`);
    expect(res.body).toContain(`<a href="/markets/${MARKET}">CPU pool</a>`);
    expect(res.headers.get('vary')).toBe('Accept, Authorization');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('serves the market page to a browser by the market name too', async () => {
    const res = await get(server.url, '/markets/cpu%20pool', { accept: BROWSER });
    expect(res.status).toBe(200);
    expect(res.body).toContain('<h1>Market CPU pool</h1>');
  });

  it('proxies a JSON Accept to the API', async () => {
    const res = await get(server.url, `/jobs/${JOB}`, { accept: 'application/json' });
    expect(JSON.parse(res.body)).toMatchObject({ api: 'deployment-manager', url: `/jobs/${JOB}` });
  });

  it('proxies a browser that sends an Authorization header to the API', async () => {
    const res = await get(server.url, `/markets/${MARKET}`, { accept: BROWSER, authorization: 'Bearer ocg_key' });
    expect(JSON.parse(res.body)).toEqual({ api: 'host-manager', url: `/markets/${MARKET}`, authorization: 'Bearer ocg_key' });
  });

  it('proxies what curl and fetch send by default (any type) to the API', async () => {
    expect(JSON.parse((await get(server.url, `/jobs/${JOB}`, { accept: '*/*' })).body)).toMatchObject({ api: 'deployment-manager' });
  });

  it('leaves other methods and deeper paths to the API', async () => {
    expect(JSON.parse((await get(server.url, `/jobs/${JOB}/stop`, { accept: BROWSER }, 'POST')).body)).toMatchObject({ url: `/jobs/${JOB}/stop` });
  });

  it('answers 404 with an HTML page for an unknown job or market', async () => {
    const job = await get(server.url, '/jobs/nosuchjob', { accept: BROWSER });
    expect([job.status, job.type]).toEqual([404, 'text/html; charset=utf-8']);
    expect(job.body).toContain('No such job');
    expect((await get(server.url, '/markets/nosuchmarket', { accept: BROWSER })).body).toContain('No such market');
  });

  it('answers the not-found page for a dot segment (fetch would resolve it away; raw http keeps it)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      http
        .get(`${server.url}/markets/%2E%2E`, { headers: { accept: BROWSER } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject);
    });
    expect(status).toBe(404);
  });

  it('answers 503 with an HTML page when a service is down', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const { g, s } = await start(dead, hm.url);
    const res = await get(s.url, `/jobs/${JOB}`, { accept: BROWSER });
    await s.close();
    g.close();
    expect([res.status, res.type, res.headers.get('retry-after')]).toEqual([503, 'text/html; charset=utf-8', '5']);
    expect(res.body).toContain('Temporarily unavailable');
  });
});
