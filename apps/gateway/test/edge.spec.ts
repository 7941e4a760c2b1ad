/**
 * The edge proxy (ADR 0093): HAProxy, the gateway's child, ends job hosts'
 * TLS and sends a label whose endpoint has a forward straight to it, with
 * the headers the gateway states; everything else reaches the gateway. The
 * control plane, the node ingress and the container are loopback servers,
 * HAProxy is the real one (Debian's `haproxy`).
 */
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { WebSocket, WebSocketServer } from 'ws';
import { createAddressPolicy, listen, Metrics, type RunningServer } from '@ocg/http';
import { ensureLocalTls, notExported, testRedis, waitFor } from '@ocg/testing';
import { createGateway, type Gateway } from '../src/app';
import { startEdge, type Edge } from '../src/edge';
import { createIngress } from '../src/ingress';
import { IngressResolver } from '../src/ingress/resolver';
import { relayIngress } from '../src/ingress/relay';
import { loadConfig } from '../src/config';
import { loggerInto, routeServices, type RoutedJob } from './support/ingress-fixtures';
import { shippedSeries } from './support/shipped-series';

const TOKEN = 'internal-token-for-edge-proxy-tests';
const DOMAIN = 'nodes.edge.test';
const NODE = 'N0deEdgeAddr';

type Job = RoutedJob;

/** A node ingress or a container: says which it is and what reached it; WebSocket messages echoed the same way. */
function origin(via: string, served: { count: number }): { listener: http.RequestListener; ws: (server: http.Server) => void } {
  const seen = (req: http.IncomingMessage) => ({ via, headers: req.headers, url: req.url });
  return {
    listener: (req, res) => {
      served.count++;
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'the-origin-says', traceparent: 'the-origin-says' }).end(JSON.stringify(seen(req)));
    },
    ws: (server) =>
      new WebSocketServer({ server }).on('connection', (socket, req) => socket.on('message', (m) => socket.send(JSON.stringify({ ...seen(req), said: m.toString() })))),
  };
}

type Answer = { status: number; body: string; headers: http.IncomingHttpHeaders };

describe('the edge proxy for job hosts', () => {
  const jobs = new Map<string, Job>();
  const nodes = new Map<string, string>();
  const lookups = new Map<string, number>();
  const logs: Array<Record<string, unknown>> = [];
  const containerServed = { count: 0 };
  const nodeServed = { count: 0 };
  let dir: string;
  let ca: Buffer;
  let cp: RunningServer;
  let node: RunningServer;
  let container: RunningServer;
  let gatewayServer: RunningServer;
  let gateway: Gateway;
  let resolver: IngressResolver;
  let redis: Redis;
  let edge: Edge;
  let metrics: Metrics;
  let tlsFiles: { cert: Buffer; key: Buffer };

  const host = (label: string) => `${label}.${DOMAIN}`;
  const job = (address: string, forwards: Record<string, string>) => jobs.set(address, { job: address, status: 'RUNNING', node: NODE, forwards });
  const containerAt = () => new URL(container.url).host;

  /** One request to the edge on a connection of its own. */
  const get = (label: string, path = '/', headers: Record<string, string> = {}, port = edge.port): Promise<Answer> =>
    new Promise((resolve) => {
      https
        .get({ host: '127.0.0.1', port, path, servername: host(label), ca, agent: false, headers: { host: `${host(label)}:${port}`, ...headers } }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        })
        .on('error', (err) => resolve({ status: 0, body: err.message, headers: {} }));
    });
  const via = (a: Answer) => (a.status === 200 ? (JSON.parse(a.body) as { via: string }).via : a.status);
  /** Requests the edge sent straight to a forward, from its own counters. */
  const straight = async (): Promise<number> => {
    const text = (await metrics.exposition()).body;
    return Number(/ocg_gateway_edge_requests_total\{way="forward"\} (\d+)/.exec(text)?.[1] ?? NaN);
  };
  /** The first request of a label is the gateway's (it learns the forward); the edge sends the next ones itself. */
  const learned = async (label: string) => {
    await get(label);
    await waitFor(
      async () => {
        const before = await straight();
        await get(label);
        return (await straight()) > before;
      },
      { timeoutMs: 5000 },
    );
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocg-edge-spec-'));
    const tlsDir = join(dir, 'tls');
    const local = await ensureLocalTls({ dir: tlsDir, dnsNames: [`*.${DOMAIN}`], ips: ['127.0.0.1'] });
    ca = readFileSync(local.caCertFile);
    tlsFiles = { cert: readFileSync(local.certFile), key: readFileSync(local.keyFile) };
    cp = await listen(routeServices(TOKEN, jobs, nodes, lookups), { host: '127.0.0.1', port: 0 });
    const nodeOrigin = origin('node', nodeServed);
    node = await listen(nodeOrigin.listener, { host: '127.0.0.1', port: 0 });
    nodeOrigin.ws(node.server);
    const containerOrigin = origin('container', containerServed);
    container = await listen(containerOrigin.listener, { host: '127.0.0.1', port: 0 });
    containerOrigin.ws(container.server);
    nodes.set(NODE, node.url);
    redis = new Redis((await testRedis()).url);
    const logger = loggerInto(logs);
    metrics = new Metrics('gateway', logger);
    resolver = new IngressResolver({ deploymentManagerUrl: cp.url, hostManagerUrl: cp.url, internalToken: TOKEN, cacheMs: 60_000, negativeMs: 0 });
    const ingress = createIngress({
      nodeDomain: DOMAIN,
      timeoutMs: 5000,
      logger,
      resolver,
      policy: createAddressPolicy({ allowCidrs: '127.0.0.1/32' }),
      onForward: (label, j, forward) => edge?.learn(label, j, forward),
    });
    gateway = createGateway({ logger, redis, document: { paths: {} }, upstreams: {}, upstreamTimeoutMs: 1000, ingress });
    gatewayServer = await listen(gateway.handle, { host: '127.0.0.1', port: 0, tls: tlsFiles });
    edge = await startEdge({
      host: '127.0.0.1',
      port: 0,
      dir: join(dir, 'edge'),
      haproxy: 'haproxy',
      threads: 1,
      maxConnections: 256,
      nodeDomain: DOMAIN,
      tls: tlsFiles,
      trustedProxies: [],
      serverTimeoutMs: 5000,
      keepAliveMs: 5000,
      headMs: 5000,
      routeTtlMs: 60_000,
      logger,
      metrics,
      onForwardFailed: (j) => resolver.forget(j),
      handle: gateway.handle,
      attach: (server) => {
        server.on('upgrade', gateway.upgrade);
        relayIngress(server, { ingress, logger, timeoutMs: 5000, secure: false });
      },
    });
    resolver.onChange((j) => edge.drop(j));
  });

  afterAll(async () => {
    await edge?.close();
    await Promise.all([cp, node, container, gatewayServer].map((s) => s?.close()));
    gateway?.close();
    redis?.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    logs.length = 0;
    lookups.clear();
  });

  it('sends a label with a forward straight to it once the gateway has served it, with the headers the gateway states', async () => {
    job('EdgeJobA', { 'edgejoba-80': containerAt() });
    const first = await get('edgejoba-80');
    expect(via(first)).toBe('container');
    await learned('edgejoba-80');
    const nodeBefore = nodeServed.count;
    const before = await straight();
    const answer = await get('edgejoba-80', '/p?q=1', {
      'x-forwarded-for': '6.6.6.6',
      'x-forwarded-proto': 'http',
      'x-ocg-internal-token': 'a client guessing',
      'x-ocg-internal-edge-peer': '7.7.7.7',
      'x-request-id': 'caller.id-1',
    });
    expect(await straight()).toBe(before + 1);
    expect(nodeServed.count).toBe(nodeBefore);
    const seen = JSON.parse(answer.body) as { via: string; headers: Record<string, string>; url: string };
    expect(seen.via).toBe('container');
    expect(seen.url).toBe('/p?q=1');
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers['x-forwarded-proto']).toBe('https');
    expect(seen.headers['x-forwarded-host']).toBe(`${host('edgejoba-80')}:${edge.port}`);
    expect(seen.headers['x-ocg-internal-token']).toBeUndefined();
    expect(seen.headers['x-ocg-internal-edge-peer']).toBeUndefined();
    expect(seen.headers['x-request-id']).toBe('caller.id-1');
    expect(answer.headers['x-request-id']).toBe('caller.id-1');
    // No trace context from the caller: a new one, passed on and answered.
    expect(seen.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-02$/);
    expect(answer.headers.traceparent).toBe(seen.headers.traceparent);
  });

  it('exports every edge series the shipped dashboard and alerts read', async () => {
    const used = shippedSeries('ocg_gateway_edge_');
    expect(used.length).toBeGreaterThanOrEqual(5);
    expect(notExported(used, (await metrics.exposition()).body)).toEqual([]);
  });

  it("keeps a caller's well-formed trace context and replaces a request id that is not sane", async () => {
    job('EdgeJobB', { 'edgejobb-80': containerAt() });
    await learned('edgejobb-80');
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const before = await straight();
    const answer = await get('edgejobb-80', '/', { traceparent: parent, 'x-request-id': 'not sane!' });
    expect(await straight()).toBe(before + 1);
    const seen = JSON.parse(answer.body) as { headers: Record<string, string> };
    expect(seen.headers.traceparent).toBe(parent);
    expect(answer.headers.traceparent).toBe(parent);
    expect(seen.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers['x-request-id']).toBe(seen.headers['x-request-id']);
  });

  it('leaves to the gateway what it states otherwise (a trace context to clean), and the gateway sees the client, not what it claims', async () => {
    job('EdgeJobC', { 'edgejobc-80': containerAt() });
    await learned('edgejobc-80');
    const before = await straight();
    // Unknown flags: the gateway passes the trace on with them cleared; the edge does not rewrite it, so it hands it over.
    const answer = await get('edgejobc-80', '/', {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-ff',
      'x-forwarded-for': '6.6.6.6',
      'x-request-id': 'caller.id-2',
    });
    expect(await straight()).toBe(before);
    const seen = JSON.parse(answer.body) as { via: string; headers: Record<string, string> };
    expect(seen.via).toBe('container');
    expect(seen.headers.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-03');
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers['x-forwarded-proto']).toBe('https');
    expect(seen.headers['x-ocg-internal-edge-peer']).toBeUndefined();
    expect(seen.headers['x-request-id']).toBe('caller.id-2');
    expect(answer.headers['x-request-id']).toBe('caller.id-2');
    // A trace state with a trace context: the gateway's to check and pass on.
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const withState = await get('edgejobc-80', '/', { traceparent: parent, tracestate: 'vendor=value' });
    expect(await straight()).toBe(before);
    const seenState = JSON.parse(withState.body) as { headers: Record<string, string> };
    expect(seenState.headers.traceparent).toBe(parent);
    expect(seenState.headers.tracestate).toBe('vendor=value');
  });

  it("does not believe a client's edge-peer header on the gateway's own port", async () => {
    job('EdgeJobD', { 'edgejobd-80': containerAt() });
    const answer = await get('edgejobd-80', '/', { 'x-ocg-internal-edge-peer': '7.7.7.7' }, gatewayServer.port);
    const seen = JSON.parse(answer.body) as { headers: Record<string, string> };
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('serves unknown hosts, and labels without a forward, through the gateway', async () => {
    const unknown = await get('nosuchjob-80');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('No job or node has this address.');
    job('EdgeJobE', {});
    expect(via(await get('edgejobe-80'))).toBe('node');
    expect(via(await get('edgejobe-80'))).toBe('node');
  });

  it("takes a label back when its job's route changes, and follows the new forward", async () => {
    job('EdgeJobF', { 'edgejobf-80': containerAt() });
    await learned('edgejobf-80');
    // The route now leads to the node's ingress (the forward ended): pub/sub tells the gateway, which takes the label back.
    job('EdgeJobF', {});
    resolver.apply({ job: 'EdgeJobF', status: 'RUNNING' });
    await waitFor(async () => via(await get('edgejobf-80')) === 'node', { timeoutMs: 5000 });
    const before = await straight();
    expect(via(await get('edgejobf-80'))).toBe('node');
    expect(await straight()).toBe(before);
  });

  it('answers the unavailable page when a forward fails, and the route is looked up again', async () => {
    const soon = { count: 0 };
    const doomed = await listen(origin('doomed', soon).listener, { host: '127.0.0.1', port: 0 });
    const doomedAt = new URL(doomed.url).host;
    job('EdgeJobG', { 'edgejobg-80': doomedAt });
    await learned('edgejobg-80');
    // The container goes before its node says so: the port refuses connections.
    doomed.server.closeAllConnections();
    await doomed.close();
    const failed = await get('edgejobg-80');
    expect(failed.status).toBe(503);
    expect(failed.headers['content-type']).toContain('text/html');
    expect(failed.body).toContain('not answering');
    expect(failed.headers['x-request-id']).toBeTruthy();
    await waitFor(() => logs.some((l) => l.msg === 'job endpoint unreachable' && l.target === doomedAt), { timeoutMs: 5000 });
    // The job's labels are the gateway's again: it looks the route up and finds the new forward.
    job('EdgeJobG', { 'edgejobg-80': containerAt() });
    await waitFor(async () => via(await get('edgejobg-80')) === 'container', { timeoutMs: 5000 });
    expect(lookups.get('edgejobg')).toBeGreaterThanOrEqual(1);
  });

  it('relays WebSockets to the forward', async () => {
    job('EdgeJobH', { 'edgejobh-80': containerAt() });
    await learned('edgejobh-80');
    const socket = new WebSocket(`wss://127.0.0.1:${edge.port}/ws`, { headers: { host: host('edgejobh-80') }, ca });
    const said = await new Promise<Record<string, unknown>>((resolve, reject) => {
      socket.on('open', () => socket.send('hello'));
      socket.on('message', (m) => {
        socket.close();
        resolve(JSON.parse(m.toString()));
      });
      socket.on('error', reject);
    });
    expect(said).toMatchObject({ via: 'container', said: 'hello' });
  });

  it('keeps trying to start HAProxy again while its port is taken', async () => {
    job('EdgeJobJ', { 'edgejobj-80': containerAt() });
    await learned('edgejobj-80');
    const pidFile = join(dir, 'edge', 'haproxy.pid');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const starts = () => logs.filter((l) => l.msg === 'edge proxy started again').length;
    const before = starts();
    process.kill(pid, 'SIGKILL');
    // Another process takes the port as soon as HAProxy lets it go: the next start fails, and the one after.
    const squatter = net.createServer();
    await waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          squatter.once('error', () => resolve(false));
          squatter.listen(edge.port, '127.0.0.1', () => resolve(true));
        }),
      { timeoutMs: 5000, intervalMs: 20 },
    );
    await waitFor(() => logs.some((l) => String(l.msg).startsWith('the edge proxy did not start again')), { timeoutMs: 10_000 });
    await new Promise<void>((r) => squatter.close(() => r()));
    await waitFor(() => starts() > before, { timeoutMs: 15_000, what: 'HAProxy to start once the port is free' });
    await learned('edgejobj-80');
  }, 40_000);

  it('starts HAProxy again when it dies, with an empty map, and serves on', async () => {
    job('EdgeJobI', { 'edgejobi-80': containerAt() });
    await learned('edgejobi-80');
    const pidFile = join(dir, 'edge', 'haproxy.pid');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    process.kill(pid, 'SIGKILL');
    await waitFor(() => logs.some((l) => String(l.msg).startsWith('the edge proxy exited')), { timeoutMs: 5000 });
    await waitFor(() => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8')) !== pid, { timeoutMs: 10_000 });
    await waitFor(async () => via(await get('edgejobi-80')) === 'container', { timeoutMs: 10_000 });
    await learned('edgejobi-80');
  }, 30_000);
});

describe("the edge proxy's life", () => {
  let dir: string;
  let tls: { certFile: string; keyFile: string; caCertFile: string };
  const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocg-edge-life-'));
    tls = await ensureLocalTls({ dir: join(dir, 'tls'), dnsNames: [`*.${DOMAIN}`], ips: ['127.0.0.1'] });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A gateway of its own running an edge (support/edge-child.ts), under `prefix` (prlimit); its edge's port and HAProxy's pid once serving. */
  const childGateway = async (name: string, env: Record<string, string> = {}, prefix: string[] = []) => {
    const command = [...prefix, process.execPath, '--import', 'tsx', join(__dirname, 'support/edge-child.ts')];
    const child = spawn(command[0], command.slice(1), {
      env: { ...process.env, EDGE_DIR: join(dir, name), EDGE_CERT: tls.certFile, EDGE_KEY: tls.keyFile, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let errors = '';
    child.stderr!.on('data', (d: Buffer) => (errors += d.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (l) => l.startsWith('edge ') && resolve(l));
      child.once('exit', (code) => reject(new Error(`the child gateway exited (${code}): ${errors}`)));
    });
    const [, port, pid] = line.split(' ').map(Number);
    return { child, port, pid, errors: () => errors };
  };

  it('starts under a low open files limit with fewer connections, and says so', async () => {
    const { child, pid, errors } = await childGateway('low-limit', { EDGE_MAX_CONNECTIONS: '4096' }, ['prlimit', '--nofile=1024:1024', '--']);
    try {
      expect(alive(pid)).toBe(true);
      expect(readFileSync(join(dir, 'low-limit', 'haproxy.cfg'), 'utf8')).toMatch(/^ {2}maxconn 480$/m);
    } finally {
      child.kill('SIGKILL');
      await waitFor(() => !alive(pid), { timeoutMs: 5000 });
    }
    expect(errors()).toBe('');
  });

  it('dies with a gateway that is killed', async () => {
    const { child, port, pid } = await childGateway('killed');
    expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    await waitFor(() => !alive(pid), { timeoutMs: 5000, what: 'HAProxy to die with its gateway' });
    // And its port is free again.
    await new Promise<void>((resolve, reject) => {
      const server = net.createServer().once('error', reject);
      server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
    });
  });

  it('believes the PROXY protocol header of the load balancers named, and only theirs', async () => {
    const edge = await startEdge({
      ...lifeOptions(tls),
      port: 0,
      dir: join(dir, 'proxy-protocol'),
      proxyProtocolFrom: ['127.0.0.2/32'],
      handle: (req, res) => res.end(`peer ${String(req.headers['x-ocg-internal-edge-peer'])}`),
    });
    const ask = (from: string, header = ''): Promise<string> =>
      new Promise((resolve) => {
        const raw = net.connect({ host: '127.0.0.1', port: edge.port, localAddress: from }, () => {
          raw.write(header);
          const socket = tlsConnect({ socket: raw, servername: `x.${DOMAIN}`, ca: readFileSync(tls.caCertFile) }, () =>
            socket.write(`GET / HTTP/1.1\r\nHost: x.${DOMAIN}\r\nConnection: close\r\n\r\n`),
          );
          let answer = '';
          socket.on('data', (d: Buffer) => (answer += d.toString()));
          socket.on('end', () => resolve(answer ? (answer.split('\r\n\r\n')[1] ?? answer) : 'refused: closed without an answer'));
          socket.on('error', (err) => resolve(`refused: ${err.message}`));
        });
        raw.on('error', (err) => resolve(`refused: ${err.message}`));
      });
    try {
      // The load balancer names its client: the gateway is told that client.
      expect(await ask('127.0.0.2', 'PROXY TCP4 203.0.113.7 127.0.0.1 40000 443\r\n')).toBe('peer 203.0.113.7');
      // Anyone else connects as itself, and may not name a client.
      expect(await ask('127.0.0.1')).toBe('peer 127.0.0.1');
      expect(await ask('127.0.0.1', 'PROXY TCP4 203.0.113.7 127.0.0.1 40000 443\r\n')).toMatch(/^refused/);
      // The load balancer's connections must start with the header.
      expect(await ask('127.0.0.2')).toMatch(/^refused/);
    } finally {
      await edge.close();
    }
  });

  it("stops a predecessor's HAProxy still holding the port before it takes it", async () => {
    const edgeDir = join(dir, 'leftover');
    // What a gateway killed without its HAProxy dying (no setpriv) leaves: HAProxy running on the edge's port, its pid file.
    const first = await startEdge({ ...lifeOptions(tls), dir: edgeDir, port: 0 });
    const pidFile = join(edgeDir, 'haproxy.pid');
    const leftover = spawn('haproxy', ['-db', '-f', join(edgeDir, 'haproxy.cfg')], { stdio: 'ignore' });
    const port = first.port;
    await first.close();
    writeFileSync(pidFile, String(leftover.pid));
    await waitFor(() => alive(leftover.pid!), { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 300)); // HAProxy binds its port at start
    const records: Array<Record<string, unknown>> = [];
    const second = await startEdge({ ...lifeOptions(tls, records), dir: edgeDir, port });
    try {
      expect(alive(leftover.pid!)).toBe(false);
      const answer = await new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, path: '/', ca: readFileSync(tls.caCertFile), agent: false, headers: { host: `x.${DOMAIN}` } }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve(body));
          })
          .on('error', reject);
      });
      expect(answer).toBe('the gateway behind the edge\n');
    } finally {
      await second.close();
    }
    // Its soft stop ("Proxy … stopped", HAProxy's warnings) is expected, so not a warning of the gateway's.
    expect(records.filter((r) => r.msg === 'edge proxy' && String(r.haproxy).includes('stopped')).length).toBeGreaterThan(0);
    expect(records.filter((r) => Number(r.level) >= 40 || r.level === 'warn')).toEqual([]);
  });
});

function lifeOptions(tls: { certFile: string; keyFile: string }, records: Array<Record<string, unknown>> = []) {
  return {
    host: '127.0.0.1',
    haproxy: 'haproxy',
    threads: 1,
    maxConnections: 64,
    nodeDomain: DOMAIN,
    tls: { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) },
    trustedProxies: [],
    serverTimeoutMs: 5000,
    keepAliveMs: 5000,
    headMs: 5000,
    routeTtlMs: 60_000,
    logger: loggerInto(records, 'debug'),
    handle: (_req: http.IncomingMessage, res: http.ServerResponse) => res.end('the gateway behind the edge\n'),
  };
}

describe('the edge settings', () => {
  const base = { REDIS_URL: 'redis://127.0.0.1:1', INTERNAL_TOKEN: 'x'.repeat(16), TLS_CERT_FILE: '/c', TLS_KEY_FILE: '/k' };
  it('need TLS and the internal token', () => {
    expect(() => loadConfig({ ...base, TLS_CERT_FILE: undefined, TLS_KEY_FILE: undefined, EDGE_PORT: '9443' })).toThrow(/EDGE_PORT.*TLS_CERT_FILE/s);
    // Its own certificate: the gateway's port may stay plain HTTP (behind a TLS-ending Ingress).
    expect(loadConfig({ ...base, TLS_CERT_FILE: undefined, TLS_KEY_FILE: undefined, EDGE_PORT: '9443', EDGE_TLS_CERT_FILE: '/e', EDGE_TLS_KEY_FILE: '/k' })).toMatchObject({
      EDGE_PORT: 9443,
      EDGE_TLS_CERT_FILE: '/e',
    });
    expect(() => loadConfig({ ...base, EDGE_PORT: '9443', EDGE_TLS_CERT_FILE: '/e' })).toThrow(/EDGE_TLS_KEY_FILE/);
    // Empty is off, as unset (compose and Kubernetes cannot leave out a variable they name).
    expect(loadConfig({ ...base, EDGE_PORT: '' }).EDGE_PORT).toBeUndefined();
    expect(loadConfig({ ...base, EDGE_PORT: ' ' }).EDGE_PORT).toBeUndefined();
    expect(loadConfig({ ...base, EDGE_PORT: '0' }).EDGE_PORT).toBe(0);
    expect(() => loadConfig({ ...base, INTERNAL_TOKEN: undefined, EDGE_PORT: '9443' })).toThrow(/EDGE_PORT.*INTERNAL_TOKEN/s);
    expect(loadConfig({ ...base, EDGE_PORT: '9443' })).toMatchObject({ EDGE_PORT: 9443, EDGE_HAPROXY: 'haproxy', EDGE_THREADS: 1, EDGE_ROUTE_TTL_MS: 10_000 });
    expect(loadConfig(base).EDGE_PORT).toBeUndefined();
  });

  it('take load balancers speaking the PROXY protocol as CIDRs', () => {
    expect(loadConfig({ ...base, EDGE_PORT: '9443' }).EDGE_PROXY_PROTOCOL_FROM).toBe('');
    expect(loadConfig({ ...base, EDGE_PORT: '9443', EDGE_PROXY_PROTOCOL_FROM: '10.0.0.0/8, 192.0.2.7' }).EDGE_PROXY_PROTOCOL_FROM).toBe('10.0.0.0/8, 192.0.2.7');
    expect(() => loadConfig({ ...base, EDGE_PORT: '9443', EDGE_PROXY_PROTOCOL_FROM: '10.0.0.0/33' })).toThrow(/EDGE_PROXY_PROTOCOL_FROM/);
  });
});
