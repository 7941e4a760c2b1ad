/**
 * Forwards (ADRs 0090, 0092): a job's ready endpoint is reached at the
 * address its node forwards to the container, without the node's ingress,
 * whether the request is served by the HTTP server or relayed on the
 * connection (ADR 0084), and for WebSockets. The control plane, the node
 * ingress and the containers are real loopback servers.
 */
import http from 'node:http';
import net from 'node:net';
import { Redis } from 'ioredis';
import { WebSocket, WebSocketServer } from 'ws';
import { createAddressPolicy, listen, type RelaySet, type RunningServer } from '@ocg/http';
import { freePort, testRedis } from '@ocg/testing';
import { createGateway, type Gateway } from '../src/app';
import { createIngress } from '../src/ingress';
import { IngressResolver } from '../src/ingress/resolver';
import { relayIngress } from '../src/ingress/relay';
import { loggerInto, routeServices, type RoutedJob } from './support/ingress-fixtures';

const TOKEN = 'internal-token-for-ingress-forward-tests';
const DOMAIN = 'nodes.forwards.test';
const NODE = 'N0deFwdAddr';

type Job = RoutedJob;

/** A node ingress or a container: says which it is and what reached it, and echoes WebSocket messages the same way. */
function origin(via: string): { listener: http.RequestListener; ws: (server: http.Server) => void } {
  const seen = (req: http.IncomingMessage) => ({
    via,
    host: req.headers.host,
    url: req.url,
    forwardedFor: req.headers['x-forwarded-for'],
    forwardedHost: req.headers['x-forwarded-host'],
    forwardedProto: req.headers['x-forwarded-proto'],
    requestId: req.headers['x-request-id'],
  });
  return {
    listener: (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen(req))),
    ws: (server) =>
      new WebSocketServer({ server }).on('connection', (socket, req) => socket.on('message', (m) => socket.send(JSON.stringify({ ...seen(req), said: m.toString() })))),
  };
}

type Answer = { status: number; body: string; type: string };

/** One request on a connection of its own (so each is relayed from its first request); status 0: the connection was cut. */
function get(base: string, host: string, path = '/', headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve) => {
    http
      .get(`${base}${path}`, { headers: { host, ...headers }, agent: false }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }));
        res.on('error', () => resolve({ status: 0, body, type: '' }));
      })
      .on('error', (err) => resolve({ status: 0, body: err.message, type: '' }));
  });
}

function wsSay(base: string, host: string, text: string): Promise<Record<string, unknown>> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}/ws`, { headers: { host, 'x-forwarded-for': '6.6.6.6' } });
  return new Promise((resolve, reject) => {
    socket.on('open', () => socket.send(text));
    socket.on('message', (m) => {
      socket.close();
      resolve(JSON.parse(m.toString()));
    });
    socket.on('error', reject);
  });
}

describe.each([
  ['served by the HTTP server', false],
  ['relayed', true],
])('job endpoints at their forwards, %s', (_mode, relayed) => {
  const jobs = new Map<string, Job>();
  const nodes = new Map<string, string>();
  const lookups = new Map<string, number>();
  const logs: Array<Record<string, unknown>> = [];
  let cp: RunningServer;
  let node: RunningServer;
  let container: RunningServer;
  let outside: RunningServer;
  /** Accepts connections and resets each once a request arrives: a container gone mid-exchange. */
  let resetting: net.Server;
  let server: RunningServer;
  let gateway: Gateway;
  let resolver: IngressResolver;
  let redis: Redis;
  let relays: RelaySet | undefined;
  let addressOf: (s: { url: string } | net.Server) => string;

  const job = (address: string, forwards: Record<string, string>) => jobs.set(address, { job: address, status: 'RUNNING', node: NODE, forwards });
  const host = (label: string) => `${label}.${DOMAIN}`;
  const reached = (res: Answer) => (res.status === 200 ? JSON.parse(res.body).via : res.status);

  beforeAll(async () => {
    cp = await listen(routeServices(TOKEN, jobs, nodes, lookups), { host: '127.0.0.1', port: 0 });
    const nodeOrigin = origin('node');
    node = await listen(nodeOrigin.listener, { host: '127.0.0.1', port: 0 });
    nodeOrigin.ws(node.server);
    const containerOrigin = origin('container');
    container = await listen(containerOrigin.listener, { host: '127.0.0.1', port: 0 });
    containerOrigin.ws(container.server);
    // Loopback too, but outside what the gateway's policy allows.
    outside = await listen(origin('outside the policy').listener, { host: '127.0.0.2', port: 0 });
    resetting = net.createServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    await new Promise<void>((r) => resetting.listen(0, '127.0.0.1', () => r()));
    addressOf = (s) => (s instanceof net.Server ? `127.0.0.1:${(s.address() as net.AddressInfo).port}` : new URL(s.url).host);
    nodes.set(NODE, node.url);
    redis = new Redis((await testRedis()).url);
    const logger = loggerInto(logs);
    // A route cache far longer than any test: only a forgotten route, or a change, makes a lookup.
    resolver = new IngressResolver({ deploymentManagerUrl: cp.url, hostManagerUrl: cp.url, internalToken: TOKEN, cacheMs: 60_000, negativeMs: 0 });
    const ingress = createIngress({ nodeDomain: DOMAIN, timeoutMs: 5000, logger, resolver, policy: createAddressPolicy({ allowCidrs: '127.0.0.1/32' }) });
    gateway = createGateway({ logger, redis, document: { paths: {} }, upstreams: {}, upstreamTimeoutMs: 1000, ingress });
    server = await listen(gateway.handle, { host: '127.0.0.1', port: 0 });
    server.server.on('upgrade', gateway.upgrade);
    if (relayed) relays = relayIngress(server.server, { ingress, logger, timeoutMs: 5000, secure: false });
  });

  afterAll(async () => {
    await Promise.all([relays?.close(1000), server.close(), cp.close(), node.close(), container.close(), outside.close(), new Promise((r) => resetting.close(r))]);
    gateway.close();
    redis.disconnect();
  });

  it('reaches a label with a forward at the container, with the Host unchanged and the client as x-forwarded-for', async () => {
    job('FwdJobAaa1', { fwdjobaaa1: addressOf(container), 'fwdjobaaa1-8080': addressOf(container) });
    for (const label of ['fwdjobaaa1', 'fwdjobaaa1-8080', 'FwdJobAaa1-8080']) {
      const res = await get(server.url, host(label), '/fwd?x=1', { 'x-forwarded-for': '6.6.6.6', 'x-forwarded-host': 'evil.example' });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({
        via: 'container',
        host: host(label),
        url: '/fwd?x=1',
        forwardedFor: '127.0.0.1',
        forwardedHost: host(label),
        forwardedProto: 'http',
        requestId: expect.any(String),
      });
    }
    // Relayed: the relay answered (its log line says so), not the HTTP server it hands refusals to.
    expect(logs.filter((l) => l.path === '/fwd' && l.relayed).length).toBe(relayed ? 3 : 0);
  });

  it("leaves a label without a forward to the node's ingress, unchanged", async () => {
    job('FwdJobBbb2', { 'fwdjobbbb2-8080': addressOf(container) });
    expect(reached(await get(server.url, host('fwdjobbbb2-8080')))).toBe('container');
    const res = await get(server.url, host('fwdjobbbb2-5000'), '/plain');
    expect(JSON.parse(res.body)).toMatchObject({ via: 'node', host: host('fwdjobbbb2-5000'), url: '/plain', forwardedFor: '127.0.0.1' });
    expect(reached(await get(server.url, host('fwdjobbbb2')))).toBe('node');
  });

  it('passes a WebSocket to the container at its forward, and one without a forward to the node', async () => {
    job('FwdJobCcc3', { 'fwdjobccc3-8080': addressOf(container) });
    expect(await wsSay(server.url, host('fwdjobccc3-8080'), 'hello')).toMatchObject({
      via: 'container',
      host: host('fwdjobccc3-8080'),
      forwardedFor: '127.0.0.1',
      said: 'hello',
    });
    expect(await wsSay(server.url, host('fwdjobccc3-9000'), 'hi')).toMatchObject({ via: 'node', host: host('fwdjobccc3-9000'), said: 'hi' });
  });

  it("serves a forward the address policy refuses through the node's ingress, and says so once", async () => {
    job('FwdJobDdd4', { 'fwdjobddd4-8080': addressOf(container), 'fwdjobddd4-9090': addressOf(outside) });
    expect(reached(await get(server.url, host('fwdjobddd4-8080')))).toBe('container');
    expect(reached(await get(server.url, host('fwdjobddd4-9090')))).toBe('node');
    expect(reached(await get(server.url, host('fwdjobddd4-9090')))).toBe('node');
    // The route looked up again (a change came): the refusal is not logged again.
    resolver.apply({ job: 'FwdJobDdd4', status: 'RUNNING' });
    expect(reached(await get(server.url, host('fwdjobddd4-9090')))).toBe('node');
    expect(lookups.get('fwdjobddd4')).toBe(2);
    expect(logs.filter((l) => l.msg === 'job endpoint forward refused; served through the node ingress' && l.forward === `http://${addressOf(outside)}`).length).toBe(1);
  });

  it('answers 503 for a forward that refuses connections, and looks the route up again', async () => {
    const closed = `127.0.0.1:${await freePort()}`;
    job('FwdJobEee5', { 'fwdjobeee5-8080': closed });
    const res = await get(server.url, host('fwdjobeee5-8080'));
    expect([res.status, res.type]).toEqual([503, 'text/html; charset=utf-8']);
    expect(res.body).toContain('not answering');
    expect(lookups.get('fwdjobeee5')).toBe(1);
    // deployment-manager has not heard yet: the forward is still there, and still refuses.
    expect((await get(server.url, host('fwdjobeee5-8080'))).status).toBe(503);
    expect(lookups.get('fwdjobeee5')).toBe(2);
    // It has now: the label goes to the node's ingress.
    job('FwdJobEee5', {});
    expect(reached(await get(server.url, host('fwdjobeee5-8080')))).toBe('node');
    expect(lookups.get('fwdjobeee5')).toBe(3);
  });

  it('drops a WebSocket whose forward refuses connections, and looks the route up again', async () => {
    job('FwdJobGgg7', { 'fwdjobggg7-8080': `127.0.0.1:${await freePort()}` });
    await expect(wsSay(server.url, host('fwdjobggg7-8080'), 'hello')).rejects.toThrow();
    job('FwdJobGgg7', {});
    expect(await wsSay(server.url, host('fwdjobggg7-8080'), 'hi')).toMatchObject({ via: 'node', said: 'hi' });
    expect(lookups.get('fwdjobggg7')).toBe(2);
  });

  it('gives up a forward that fails before answering (503, or the relayed connection cut), and looks the route up again', async () => {
    job('FwdJobFff6', { 'fwdjobfff6-8080': addressOf(resetting) });
    const res = await get(server.url, host('fwdjobfff6-8080'));
    // The relay has sent the request on by then: as with a node ingress that fails so, the client's connection is cut.
    expect(res.status).toBe(relayed ? 0 : 503);
    job('FwdJobFff6', {});
    expect(reached(await get(server.url, host('fwdjobfff6-8080')))).toBe('node');
    expect(lookups.get('fwdjobfff6')).toBe(2);
  });
});
