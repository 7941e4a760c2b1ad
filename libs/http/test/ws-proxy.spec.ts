/**
 * The WebSocket proxy's failure modes (ADR 0013), on real sockets: a client or
 * an upstream that resets before or after the upgrade, and an upstream that
 * refuses it. Whatever happens, the test process keeps running (an unhandled
 * socket error would end it) and no socket is left open on either side.
 */
import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWsProxy, type WsProxy } from '../src';

type UpgradeHandler = (socket: net.Socket) => void;

interface Harness {
  /** The proxy's own server: its client-side sockets, open until closed. */
  frontSockets: Set<net.Socket>;
  /** The upstream's server-side sockets, open until closed. */
  upstreamSockets: Set<net.Socket>;
  /** Each upgrade that reached the upstream. */
  upgrades: net.Socket[];
  /** The upgrade requests as the upstream read them. */
  requests: http.IncomingMessage[];
  failures: Error[];
  /** A raw client that has sent an upgrade request to the proxy. */
  connect(opts?: { allowHalfOpen?: boolean; headers?: string; early?: string }): Promise<{ socket: net.Socket; received: () => string; closed: Promise<void> }>;
}

const servers: http.Server[] = [];
const proxies: WsProxy[] = [];
const agents: http.Agent[] = [];
const allSockets = new Set<net.Socket>();

afterEach(async () => {
  proxies.splice(0).forEach((p) => p.close());
  agents.splice(0).forEach((a) => a.destroy());
  for (const socket of allSockets) socket.destroy();
  allSockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listenLocal(server: http.Server): Promise<number> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as net.AddressInfo).port;
}

function track(sockets: Set<net.Socket>, socket: net.Socket): void {
  allSockets.add(socket);
  sockets.add(socket);
  socket.once('close', () => sockets.delete(socket));
}

interface Target {
  agent?: http.Agent;
  /** Path of the target URL (the request's own path is joined to it). */
  path?: string;
  headers?: Record<string, string>;
}

async function harness(onUpgrade: UpgradeHandler, agent?: http.Agent, target: Omit<Target, 'agent'> = {}): Promise<Harness> {
  const h: Harness = { frontSockets: new Set(), upstreamSockets: new Set(), upgrades: [], requests: [], failures: [], connect: undefined! };
  const upstream = http.createServer((_req, res) => res.writeHead(404).end());
  upstream.on('connection', (socket: net.Socket) => track(h.upstreamSockets, socket));
  upstream.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
    socket.on('error', () => undefined);
    h.requests.push(req);
    // As a WebSocket server does: hangs up when the proxy does.
    socket.once('end', () => socket.end());
    h.upgrades.push(socket);
    onUpgrade(socket);
  });
  const upstreamPort = await listenLocal(upstream);
  const proxy = createWsProxy();
  proxies.push(proxy);
  const front = http.createServer((_req, res) => res.writeHead(404).end());
  front.on('connection', (socket: net.Socket) => track(h.frontSockets, socket));
  front.on('upgrade', (req, socket, head) =>
    proxy.proxy(req, socket, head, { url: `ws://127.0.0.1:${upstreamPort}${target.path ?? ''}`, agent, headers: target.headers }, (err) => h.failures.push(err)),
  );
  const frontPort = await listenLocal(front);
  h.connect = async (opts: { allowHalfOpen?: boolean; headers?: string; early?: string } = {}) => {
    const socket = net.connect({ host: '127.0.0.1', port: frontPort, allowHalfOpen: opts.allowHalfOpen ?? false });
    allSockets.add(socket);
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    const closed = once(socket, 'close').then(() => undefined);
    await once(socket, 'connect');
    const key = randomBytes(16).toString('base64');
    socket.write(
      `GET /ws?room=1 HTTP/1.1\r\nHost: app.example.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${opts.headers ?? ''}\r\n${opts.early ?? ''}`,
    );
    return { socket, received: () => text, closed };
  };
  return h;
}

async function until(what: string, check: () => boolean, timeoutMs = 8000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const accept = (socket: net.Socket) => socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');

describe('the WebSocket proxy', () => {
  it('carries bytes both ways once upgraded, those sent before the 101 and with it included', async () => {
    const h = await harness((socket) => {
      // The 101 and the first frame in one write: the frame reaches the proxy as the upgrade's head.
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Upstream: yes\r\n\r\nhello ');
      socket.on('data', (chunk: Buffer) => socket.write(`echo:${chunk.toString('latin1')};`));
    });
    // Sent with the request, before any answer: kept for the upstream until it upgrades.
    const client = await h.connect({ early: 'first' });
    await until('the echo of what was sent early', () => client.received().endsWith('echo:first;'));
    client.socket.write('second');
    await until('the echo of what was sent after', () => client.received().endsWith('echo:second;'));
    expect(client.received()).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Upstream: yes\r\n\r\nhello /);
    client.socket.end();
    await until('the upstream socket to close', () => h.upstreamSockets.size === 0);
    await until('the client-side socket to close', () => h.frontSockets.size === 0);
  });

  it('keeps what the client sends while the upstream decides, and gives it to the upstream once upgraded', async () => {
    let answer: () => void = () => undefined;
    const received: string[] = [];
    const h = await harness((socket) => {
      socket.on('data', (chunk: Buffer) => received.push(chunk.toString('latin1')));
      answer = () => accept(socket);
    });
    const client = await h.connect();
    await until('the upgrade to reach the upstream', () => h.upgrades.length === 1);
    client.socket.write('sent-while-waiting');
    await new Promise((r) => setTimeout(r, 100));
    expect(received).toEqual([]); // nothing passes before the 101
    answer();
    await until('the early bytes at the upstream', () => received.join('') === 'sent-while-waiting');
    expect(client.received()).toMatch(/^HTTP\/1\.1 101 /);
  });

  it('cuts a client that sends more than 64 KiB before the upstream answers, and the upstream request with it', async () => {
    const h = await harness(() => undefined);
    const client = await h.connect();
    await until('the upgrade to reach the upstream', () => h.upgrades.length === 1);
    client.socket.write(Buffer.alloc(32 * 1024, 'a'));
    await new Promise((r) => setTimeout(r, 100));
    expect(h.frontSockets.size).toBe(1); // under the limit: still waiting
    client.socket.write(Buffer.alloc(33 * 1024, 'b'));
    await client.closed;
    await until('the upstream socket to close', () => h.upstreamSockets.size === 0);
    await until('the client-side socket to close', () => h.frontSockets.size === 0);
  });

  it("sends the client's request to the target's path with the caller's headers in place of the client's", async () => {
    const h = await harness(accept, undefined, { path: '/base', headers: { 'x-forwarded-for': '203.0.113.9', 'x-request-id': 'req-1' } });
    const client = await h.connect({ headers: 'X-Forwarded-For: 10.0.0.1\r\nX-Custom: kept\r\n' });
    await until('the 101', () => client.received().startsWith('HTTP/1.1 101'));
    const [req] = h.requests;
    expect(req.method).toBe('GET');
    expect(req.url).toBe('/base/ws?room=1');
    expect(req.headers).toMatchObject({
      host: 'app.example.test',
      upgrade: 'websocket',
      connection: 'Upgrade',
      'sec-websocket-version': '13',
      'x-custom': 'kept',
      'x-forwarded-for': '203.0.113.9',
      'x-request-id': 'req-1',
    });
  });

  it('closes the upstream request when the client resets before the upstream answers', async () => {
    const h = await harness(() => undefined);
    const client = await h.connect();
    await until('the upgrade to reach the upstream', () => h.upgrades.length === 1);
    client.socket.resetAndDestroy();
    await until('the upstream socket to close', () => h.upstreamSockets.size === 0);
    await until('the client-side socket to close', () => h.frontSockets.size === 0);
  });

  it('closes the upstream socket when the client resets after the upgrade', async () => {
    const h = await harness(accept);
    const client = await h.connect();
    await until('the 101', () => client.received().startsWith('HTTP/1.1 101'));
    client.socket.resetAndDestroy();
    await until('the upstream socket to close', () => h.upstreamSockets.size === 0);
    await until('the client-side socket to close', () => h.frontSockets.size === 0);
  });

  it('closes the client and reports the failure when the upstream resets before answering', async () => {
    const h = await harness((socket) => socket.resetAndDestroy());
    const client = await h.connect();
    await client.closed;
    expect(h.failures.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(['ECONNRESET']);
    await until('the client-side socket to close', () => h.frontSockets.size === 0);
    expect(h.upstreamSockets.size).toBe(0);
  });

  it('closes the client when the upstream resets after the upgrade', async () => {
    const h = await harness(accept);
    const client = await h.connect();
    await until('the 101', () => client.received().startsWith('HTTP/1.1 101'));
    h.upgrades[0].resetAndDestroy();
    await client.closed;
    await until('the client-side socket to close', () => h.frontSockets.size === 0);
  });

  it.each([
    ['a keep-alive agent', () => new http.Agent({ keepAlive: true })],
    ['the global agent', () => undefined],
  ])(
    'passes a refused upgrade on to the client and closes both sockets (%s)',
    async (_name, makeAgent) => {
      const agent = makeAgent();
      if (agent) agents.push(agent);
      // A keep-alive upstream: it answers and leaves the connection open for the next request.
      const h = await harness((socket) => socket.write('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nnope!'), agent);
      // A client that neither closes after the answer nor half-closes: the proxy has to hang up.
      const client = await h.connect({ allowHalfOpen: true });
      await until('the refusal', () => client.received().endsWith('nope!'));
      expect(client.received()).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      await until('the upstream socket to close', () => h.upstreamSockets.size === 0);
      // Closed by the proxy, after a grace of a few seconds for the client to do it.
      await until('the client-side socket to close', () => h.frontSockets.size === 0, 15_000);
      expect(client.socket.readableEnded).toBe(true);
      expect(h.failures).toEqual([]);
    },
    30_000,
  );
});
