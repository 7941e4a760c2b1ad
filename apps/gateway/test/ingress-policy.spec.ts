/**
 * Issue 11, item 2: the gateway is no proxy into its own network. A node's
 * ingress URL is the node's own word: loopback, private, link-local and
 * metadata addresses are refused at connect time (literal or as a name
 * resolves) unless the operator allows them; https:// ingress URLs work
 * with TLS verified; node hosts reach the node API's routes only; a node
 * with no presence serves nothing.
 */
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { WebSocket, WebSocketServer } from 'ws';
import { createAddressPolicy, createLogger, listen, type AddressPolicy, type RunningServer } from '@ocg/http';
import { ensureLocalTls, testRedis } from '@ocg/testing';
import { createGateway, type Gateway } from '../src/app';
import { createIngress } from '../src/ingress';
import { IngressResolver } from '../src/ingress/resolver';

const TOKEN = 'internal-token-for-ingress-policy-tests';
const DOMAIN = 'nodes.policy.test';

type Job = { job: string; status: string; node: string };
type Node = { address: string; ingressUrl: string; status: string };

/** deployment-manager's and host-manager's internal routes over these maps. */
function controlPlane(jobs: Map<string, Job>, nodes: Map<string, Node>): http.RequestListener {
  return (req, res) => {
    if (req.headers['x-ocg-internal-token'] !== TOKEN) return void res.writeHead(401).end();
    const [, , kind, id] = (req.url ?? '').split('/');
    const body = kind === 'jobs' ? jobs.get(id) : nodes.get(id);
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
}

function get(base: string, host: string, path = '/', method = 'GET'): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('where the gateway lets node hosts and job hosts lead', () => {
  const jobs = new Map<string, Job>();
  const nodes = new Map<string, Node>();
  const reached: string[] = [];
  let cp: RunningServer;
  let plain: RunningServer;
  let secure: http.Server;
  let securePort: number;
  let ca: Buffer;
  let dir: string;
  let redis: Redis;
  const opened: { server: RunningServer; gateway: Gateway }[] = [];

  /** A gateway whose ingress follows `policy` (and trusts `ca` for https ingress URLs). */
  const gatewayWith = async (policy?: AddressPolicy, withCa = false): Promise<string> => {
    const logger = createLogger({ service: 'gateway', level: 'silent' });
    const resolver = new IngressResolver({ deploymentManagerUrl: cp.url, hostManagerUrl: cp.url, internalToken: TOKEN, cacheMs: 0, negativeMs: 0 });
    const ingress = createIngress({ nodeDomain: DOMAIN, timeoutMs: 5000, logger, resolver, policy, ca: withCa ? ca : undefined });
    const gateway = createGateway({ logger, redis, document: { paths: {} }, upstreams: {}, upstreamTimeoutMs: 1000, ingress });
    const server = await listen(gateway.handle, { host: '127.0.0.1', port: 0 });
    server.server.on('upgrade', gateway.upgrade);
    opened.push({ server, gateway });
    return server.url;
  };

  const echo: http.RequestListener = (req, res) => {
    reached.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: req.url }));
  };

  beforeAll(async () => {
    cp = await listen(controlPlane(jobs, nodes), { host: '127.0.0.1', port: 0 });
    plain = await listen(echo, { host: '127.0.0.1', port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'ocg-ingress-policy-'));
    const tls = await ensureLocalTls({ dir, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
    ca = readFileSync(tls.caCertFile);
    const { createServer } = await import('node:https');
    secure = createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, echo);
    new WebSocketServer({ server: secure }).on('connection', (socket, req) => socket.on('message', (m) => socket.send(`${req.headers.host} over tls: ${m.toString()}`)));
    await new Promise<void>((r) => secure.listen(0, '127.0.0.1', () => r()));
    securePort = (secure.address() as { port: number }).port;
    redis = new Redis((await testRedis()).url);
    const port = new URL(plain.url).port;
    const node = (address: string, ingressUrl: string, status = 'ONLINE') => nodes.set(address.toLowerCase(), { address, ingressUrl, status });
    node('loopnode', plain.url);
    node('namenode', `http://localhost:${port}`);
    node('metanode', 'http://169.254.169.254');
    node('tlsnode', `https://127.0.0.1:${securePort}`);
    node('gonenode', plain.url, 'OFFLINE');
    for (const n of ['loopnode', 'namenode', 'metanode', 'tlsnode']) jobs.set(`job${n}`, { job: `job${n}`, status: 'RUNNING', node: n });
  });

  afterAll(async () => {
    for (const { server, gateway } of opened) {
      await server.close();
      gateway.close();
    }
    await Promise.all([cp.close(), plain.close(), new Promise((r) => secure.close(r))]);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => void (reached.length = 0));

  it('refuses ingress URLs on loopback, by address or by a name that resolves there, and metadata addresses, by default', async () => {
    const url = await gatewayWith();
    for (const job of ['jobloopnode', 'jobnamenode', 'jobmetanode']) {
      const res = await get(url, `${job}.${DOMAIN}`, '/latest/meta-data/');
      expect({ job, status: res.status, type: res.type }).toEqual({ job, status: 503, type: 'text/html; charset=utf-8' });
    }
    expect(reached).toEqual([]);
  });

  it('reaches private addresses the operator allows, and no others', async () => {
    const allowed = await gatewayWith(createAddressPolicy({ allowCidrs: '127.0.0.0/8, ::1' }));
    expect((await get(allowed, `jobloopnode.${DOMAIN}`, '/x')).status).toBe(200);
    expect((await get(allowed, `jobnamenode.${DOMAIN}`, '/y')).status).toBe(200);
    expect((await get(allowed, `jobmetanode.${DOMAIN}`)).status).toBe(503);
    expect(reached).toEqual(['GET /x', 'GET /y']);
  });

  it('proxies to https ingress URLs with the certificate verified against the operator CA', async () => {
    const trusting = await gatewayWith(createAddressPolicy({ allowPrivate: true }), true);
    expect(await get(trusting, `jobtlsnode.${DOMAIN}`, '/over-tls')).toMatchObject({ status: 200, body: '{"url":"/over-tls"}' });
    const ws = new WebSocket(`${trusting.replace('http', 'ws')}/ws`, { headers: { host: `jobtlsnode.${DOMAIN}` } });
    const reply = await new Promise<string>((resolve, reject) => {
      ws.on('open', () => ws.send('hi'));
      ws.on('message', (m) => resolve(m.toString()));
      ws.on('error', reject);
    });
    ws.close();
    expect(reply).toBe(`jobtlsnode.${DOMAIN} over tls: hi`);
    const untrusting = await gatewayWith(createAddressPolicy({ allowPrivate: true }));
    expect((await get(untrusting, `jobtlsnode.${DOMAIN}`, '/unverified')).status).toBe(503);
    expect(reached).toEqual(['GET /over-tls']);
  });

  it('lets node hosts reach the node API routes only', async () => {
    const url = await gatewayWith(createAddressPolicy({ allowPrivate: true }));
    const host = `loopnode.${DOMAIN}`;
    expect((await get(url, host, '/job/abc/ops')).status).toBe(200);
    expect((await get(url, host, '/job/abc/ops/web/logs?tail=5')).status).toBe(200);
    expect((await get(url, host, '/job/abc/group/g/stop', 'POST')).status).toBe(200);
    for (const [path, method] of [
      ['/latest/meta-data/', 'GET'],
      ['/', 'GET'],
      ['/job/abc/ops', 'POST'],
      ['/job/../internal/x/ops', 'GET'],
      ['/job/%2e%2e/ops', 'GET'],
      ['/job/a%2Fb/results', 'GET'],
    ]) {
      const res = await get(url, host, path, method);
      expect({ path, method, status: res.status }).toEqual({ path, method, status: 404 });
      expect(JSON.parse(res.body)).toMatchObject({ name: 'NotFoundError', status: 404, code: 'NOT_FOUND' });
    }
    expect(reached).toEqual(['GET /job/abc/ops', 'GET /job/abc/ops/web/logs?tail=5', 'POST /job/abc/group/g/stop']);
  });

  it('serves nothing for a node without presence', async () => {
    const url = await gatewayWith(createAddressPolicy({ allowPrivate: true }));
    const res = await get(url, `gonenode.${DOMAIN}`, '/job/abc/ops');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toMatchObject({ name: 'ServiceUnavailableError', status: 503, code: 'NODE_OFFLINE' });
    expect(reached).toEqual([]);
  });
});
