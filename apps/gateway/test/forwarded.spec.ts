/**
 * Issue 11, item 7 (the gateway's part): the client address comes from
 * X-Forwarded-For only through configured trusted proxies; what a client
 * says about earlier hops is replaced, never passed on; page views are
 * limited per client address.
 */
import http from 'node:http';
import { Redis } from 'ioredis';
import { createLogger, listen, parseCidrList, type RelaySet, type RunningServer } from '@ocg/http';
import { testRedis } from '@ocg/testing';
import { createGateway, type Gateway } from '../src/app';
import { createPages } from '../src/pages';
import { RateLimiter } from '@ocg/redis';

const document = { paths: { '/echo': { get: { 'x-service': 'client-manager' } }, '/jobs/{job}': { get: { 'x-service': 'client-manager' } } } };

function get(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { headers }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      })
      .on('error', reject);
  });
}

// Served by the HTTP server, and relayed as bytes (ADR 0086): the services are told the same either way.
describe.each([false, true])('who the client is, as the gateway tells the services (relayed: %s)', (relayed) => {
  let upstream: RunningServer;
  let redis: Redis;
  const opened: { server: RunningServer; gateway: Gateway; relays?: RelaySet }[] = [];
  const logger = createLogger({ service: 'gateway', level: 'silent' });

  const gatewayWith = async (trusted: string, pageViewsPerMinute = 0): Promise<string> => {
    const pages = createPages({
      deploymentManagerUrl: upstream.url,
      hostManagerUrl: upstream.url,
      clientManagerUrl: upstream.url,
      internalToken: 'internal-token-for-forwarded-tests',
      logger,
    });
    const pageLimit = new RateLimiter(redis, `pages-test-${process.pid}-${opened.length}`, { limit: pageViewsPerMinute, windowSeconds: 60 }, logger);
    const gateway = createGateway({
      logger,
      redis,
      document,
      upstreams: { 'client-manager': upstream.url },
      upstreamTimeoutMs: 2000,
      trustedProxies: parseCidrList(trusted),
      pages,
      pageLimit,
    });
    const server = await listen(gateway.handle, { host: '127.0.0.1', port: 0 });
    opened.push({ server, gateway, relays: relayed ? gateway.relayApi(server.server, false) : undefined });
    return server.url;
  };

  beforeAll(async () => {
    upstream = await listen(
      (req, res) => {
        const seen = {
          for: req.headers['x-forwarded-for'],
          host: req.headers['x-forwarded-host'],
          proto: req.headers['x-forwarded-proto'],
          forwarded: req.headers.forwarded,
          realIp: req.headers['x-real-ip'],
        };
        if (req.url?.startsWith('/internal/')) return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
      },
      { host: '127.0.0.1', port: 0 },
    );
    redis = new Redis((await testRedis()).url);
  });

  afterAll(async () => {
    for (const { server, gateway, relays } of opened) {
      await relays?.close(1000);
      await server.close();
      gateway.close();
    }
    await upstream.close();
    redis.disconnect();
  });

  const spoofed = { 'x-forwarded-for': '6.6.6.6', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'for=6.6.6.6', 'x-real-ip': '6.6.6.6' };

  it('replaces what an untrusted client says about earlier hops with what the gateway saw', async () => {
    const url = await gatewayWith('');
    const seen = JSON.parse((await get(url, '/echo', { host: 'api.example.net', ...spoofed })).body);
    expect(seen).toEqual({ for: '127.0.0.1', host: 'api.example.net', proto: 'http' });
  });

  it('believes a trusted proxy: the client is the rightmost address that is not a trusted proxy', async () => {
    const url = await gatewayWith('127.0.0.0/8, 10.1.0.0/16');
    const seen = JSON.parse(
      (await get(url, '/echo', { host: 'gw.internal', 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.1.2.3', 'x-forwarded-host': 'api.example.net', 'x-forwarded-proto': 'https' }))
        .body,
    );
    // One address, so a service counting the last X-Forwarded-For entry (client-manager's clientAddressOf) counts the client.
    expect(seen).toEqual({ for: '203.0.113.9', host: 'api.example.net', proto: 'https' });
  });

  it('limits page views per client address with 429 and Retry-After', async () => {
    const url = await gatewayWith('', 2);
    const page = () => get(url, '/jobs/NoSuchJob1', { accept: 'text/html' });
    expect((await page()).status).toBe(404);
    expect((await page()).status).toBe(404);
    const limited = await page();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(limited.body)).toMatchObject({ name: 'TooManyRequestsError', status: 429, code: 'RATE_LIMITED' });
    // The API at the same path is not a page view.
    expect((await get(url, '/jobs/NoSuchJob1', { accept: 'application/json' })).status).toBe(200);
  });
});
