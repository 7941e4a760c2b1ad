import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import https from 'node:https';
import { Redis } from 'ioredis';
import { createLogger, listen, type RunningServer } from '@ocg/http';
import { ensureLocalTls, testRedis, type LocalTls } from '@ocg/testing';
import { createGateway, type Gateway } from '../src/app';
import { redirectToHttps } from '../src/redirect';

/** A GET over HTTPS that trusts only the local CA and asks for `servername` (SNI + certificate name check). */
function get(url: string, ca: Buffer, servername: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, servername, headers: { host: servername } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('gateway over TLS', () => {
  let dir: string;
  let tls: LocalTls;
  let ca: Buffer;
  let server: RunningServer;
  let redirect: RunningServer;
  let gateway: Gateway;
  let redis: Redis;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocg-tls-'));
    tls = await ensureLocalTls({ dir, dnsNames: ['localhost', '*.nodes.localhost'], ips: ['127.0.0.1'] });
    ca = readFileSync(tls.caCertFile);
    redis = new Redis((await testRedis()).url);
    gateway = createGateway({
      logger: createLogger({ service: 'gateway', level: 'silent' }),
      redis,
      document: { paths: {} },
      upstreams: {},
      upstreamTimeoutMs: 1000,
    });
    server = await listen(gateway.handle, { host: '127.0.0.1', port: 0, tls: { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) } });
    redirect = await listen(redirectToHttps(server.port), { host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await Promise.all([server.close(), redirect.close()]);
    gateway.close();
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes the CA and certificate once and reuses them', async () => {
    expect(tls.created).toBe(true);
    expect((await ensureLocalTls({ dir, dnsNames: ['localhost'] })).created).toBe(false);
  });

  it('serves HTTPS that a client trusting the local CA accepts for the API host', async () => {
    expect(server.url).toMatch(/^https:\/\//);
    const res = await get(`https://127.0.0.1:${server.port}/healthz`, ca, 'localhost');
    expect(res).toEqual({ status: 200, body: '{"status":"ok"}' });
  });

  it('presents a certificate valid for any job host under the node domain', async () => {
    const res = await get(`https://127.0.0.1:${server.port}/healthz`, ca, 'Abc123xyz.nodes.localhost');
    expect(res.status).toBe(200);
  });

  it('is refused by a client that does not trust the local CA', async () => {
    await expect(get(`https://127.0.0.1:${server.port}/healthz`, Buffer.from(''), 'localhost')).rejects.toThrow(/self-signed|unable to verify|certificate/i);
  });

  it('redirects plain HTTP to the same host and path over HTTPS', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get(`${redirect.url}/auth/scopes?x=1`, { headers: { host: 'api.localhost:8080' } }, resolve));
    expect(res.statusCode).toBe(308);
    expect(res.headers.location).toBe(`https://api.localhost:${server.port}/auth/scopes?x=1`);
  });
});
