/**
 * INGRESS_PASSTHROUGH (ADR 0072) on real sockets: a TLS connection whose
 * server name is a running job's host is piped to the node ingress behind a
 * PROXY v2 header, once that node said it believes this gateway's headers;
 * every other connection keeps the HTTP path; a route change closes the
 * piped connections at once. The node ingress here reads the header with the
 * same code the node agent uses (its per-request rules are tested in
 * apps/node-agent/test/ingress-piped.spec.ts).
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createAddressPolicy, createLogger, listen, readProxyHeader, type ProxyHeader, type RunningServer } from '@ocg/http';
import { ensureLocalTls, testRedis, waitFor } from '@ocg/testing';
import { createGateway, type Gateway } from '../src/app';
import { createIngress } from '../src/ingress';
import { installPassthrough } from '../src/ingress/passthrough';
import { IngressResolver } from '../src/ingress/resolver';

const TOKEN = 'internal-token-for-passthrough-tests';
const DOMAIN = 'nodes.example.test';
const JOB = 'Fh3kX9aBcDeF';
const DOUBTED = 'Gq4mY8bCdEfG';
const VANISHING = 'Hr5nZ7cDeFgH';
const HOST = `${JOB.toLowerCase()}.${DOMAIN}`;

interface Echo {
  host: string;
  /** The PROXY header of the connection, null on the HTTP path. */
  proxied: ProxyHeader | null;
  forwardedFor?: string;
}

/** A node ingress that reads PROXY headers from anyone (the test's only peer is the gateway) and says so to probes when `believes`. */
async function nodeIngress(believes: boolean): Promise<{ port: number; close(): void }> {
  const headers = new WeakMap<net.Socket, ProxyHeader>();
  const server = http.createServer((req, res) => {
    if (req.headers['x-ocg-internal-ingress-probe']) return void res.writeHead(204, believes ? { 'x-ocg-proxy-protocol': 'v2' } : {}).end();
    const body: Echo = { host: req.headers.host ?? '', proxied: headers.get(req.socket) ?? null, forwardedFor: req.headers['x-forwarded-for'] as string | undefined };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  // Idle connections stay open: only the gateway closes them.
  server.keepAliveTimeout = 0;
  const sockets = new Set<net.Socket>();
  const listener = net.createServer((socket) =>
    readProxyHeader(sockets.add(socket) && socket, 5000, (header) => {
      if (header) headers.set(socket, header);
      server.emit('connection', socket);
      socket.resume();
    }),
  );
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return {
    port: (listener.address() as net.AddressInfo).port,
    close: () => {
      listener.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('gateway ingress: piped TLS connections', () => {
  let dir: string;
  let ca: Buffer;
  let cp: RunningServer;
  let nodes: Array<{ port: number; close(): void }>;
  let resolver: IngressResolver;
  let gateway: Gateway;
  let server: RunningServer;
  let redis: Redis;

  /** One GET on a new TLS connection with this server name. */
  const get = (servername: string, host = HOST): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port: server.port, path: '/', ca, servername, agent: false, headers: { host } }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocg-passthrough-'));
    const files = await ensureLocalTls({ dir, dnsNames: ['localhost', `*.${DOMAIN}`], ips: ['127.0.0.1'] });
    ca = readFileSync(files.caCertFile);
    nodes = [await nodeIngress(true), await nodeIngress(false), await nodeIngress(true)];
    const names = ['believing', 'doubting', 'vanishing'];
    const routes: Record<string, { job: string; status: string; node: string }> = {
      [JOB.toLowerCase()]: { job: JOB, status: 'RUNNING', node: 'believing' },
      [DOUBTED.toLowerCase()]: { job: DOUBTED, status: 'RUNNING', node: 'doubting' },
      [VANISHING.toLowerCase()]: { job: VANISHING, status: 'RUNNING', node: 'vanishing' },
    };
    cp = await listen(
      (req, res) => {
        const [, , kind, key] = (req.url ?? '').split('/');
        const id = decodeURIComponent(key ?? '').toLowerCase();
        const node = names.indexOf(id);
        const body = kind === 'jobs' ? routes[id] : node !== -1 ? { address: id, ingressUrl: `http://127.0.0.1:${nodes[node].port}` } : undefined;
        if (!body || req.headers['x-ocg-internal-token'] !== TOKEN) return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      },
      { host: '127.0.0.1', port: 0 },
    );
    redis = new Redis((await testRedis()).url);
    const logger = createLogger({ service: 'gateway', level: 'silent' });
    resolver = new IngressResolver({ deploymentManagerUrl: cp.url, hostManagerUrl: cp.url, internalToken: TOKEN, cacheMs: 60_000 });
    const ingress = createIngress({ nodeDomain: DOMAIN, timeoutMs: 5000, logger, policy: createAddressPolicy({ allowPrivate: true }), resolver, passthrough: true });
    gateway = createGateway({ logger, redis, document: { paths: {} }, upstreams: {}, upstreamTimeoutMs: 1000, ingress });
    server = await listen(gateway.handle, { host: '127.0.0.1', port: 0, tls: { cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) } });
    installPassthrough(server.server, ingress.passthrough!);
  });

  afterAll(async () => {
    gateway.close();
    await server.close();
    await cp.close();
    for (const node of nodes) node.close();
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it("pipes a running job's connection to a node that believes the gateway, stating the client and the server name", async () => {
    // The first connection finds no route yet (HTTP path, which looks it up) and has the node probed.
    expect(JSON.parse((await get(HOST)).body)).toMatchObject({ host: HOST, proxied: null, forwardedFor: '127.0.0.1' });
    const piped = await waitFor(async () => (JSON.parse((await get(HOST)).body) as Echo).proxied ?? undefined, { timeoutMs: 5000, intervalMs: 20, what: 'a piped connection' });
    expect(piped).toMatchObject({ client: '127.0.0.1', authority: HOST });
  });

  it('keeps the HTTP path for a server name that is no job host, an unknown job, and a node that does not believe the gateway', async () => {
    expect(JSON.parse((await get('localhost')).body)).toMatchObject({ host: HOST, proxied: null });
    expect((await get(`nosuchjob.${DOMAIN}`, `nosuchjob.${DOMAIN}`)).status).toBe(404);
    const doubted = `${DOUBTED.toLowerCase()}.${DOMAIN}`;
    await get(doubted, doubted);
    await new Promise((r) => setTimeout(r, 200)); // the probe's answer is in
    expect(JSON.parse((await get(doubted, doubted)).body)).toMatchObject({ host: doubted, proxied: null });
  });

  it('serves a connection on the HTTP path when its node cannot be reached for piping', async () => {
    const host = `${VANISHING.toLowerCase()}.${DOMAIN}`;
    await waitFor(async () => (JSON.parse((await get(host, host)).body) as Echo).proxied ?? undefined, { timeoutMs: 5000, intervalMs: 20, what: 'a piped connection' });
    nodes[2].close();
    // Known route, node believed a moment ago: the connection is made, refused, and the HTTPS server answers.
    const answer = await get(host, host);
    expect(answer.status).toBe(503);
    expect(answer.body).toContain('not answering');
  });

  it("closes a job's piped connections as soon as its route changes", async () => {
    await waitFor(async () => (JSON.parse((await get(HOST)).body) as Echo).proxied ?? undefined, { timeoutMs: 5000, intervalMs: 20, what: 'a piped connection' });
    const socket = tls.connect({ host: '127.0.0.1', port: server.port, servername: HOST, ca });
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.write(`GET / HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
    await waitFor(() => answer.includes('"proxied":{'), { timeoutMs: 5000, intervalMs: 10, what: 'the piped answer' });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    resolver.apply({ job: JOB, status: 'STOPPED' });
    await closed;
    expect(socket.destroyed).toBe(true);
  });
});
