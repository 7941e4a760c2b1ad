/** The connection relay (ADR 0084): heads rewritten, bodies and answers streamed, answers in order, strict framing, hand-over to the HTTP server. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { relayConnections, type RelaySet } from '../src/relay/relay';
import { valueOf, type Head } from '../src/relay/framing';
import { ensureLocalTls } from '@ocg/testing';

interface Upstream {
  server: http.Server;
  port: number;
  connections: number;
}

/** A large answer whose bytes differ from read to read (a buffer reused too early would show). */
const BIG = Buffer.alloc(8 * 1024 * 1024);
for (let i = 0; i < BIG.length; i++) BIG[i] = (i * 7 + (i >> 12)) % 251;

/** An upstream that answers what it received: method, target, the relay's header, and the body's length. */
async function upstream(name: string): Promise<Upstream> {
  const u = { connections: 0 } as Upstream;
  u.server = http.createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 1\n\n');
        setTimeout(() => res.end('data: 2\n\n'), 50);
        return;
      }
      if (req.url === '/slow') return void setTimeout(() => res.end('slow'), 300);
      if (req.url === '/empty') return void res.writeHead(204).end();
      if (req.url === '/big') return void res.end(BIG);
      res.setHeader('content-length', 0 + Buffer.byteLength(`${name} ${req.method} ${req.url} ${req.headers['x-relayed']} ${bytes}`));
      res.end(req.method === 'HEAD' ? undefined : `${name} ${req.method} ${req.url} ${req.headers['x-relayed']} ${bytes}`);
    });
  });
  u.server.on('connection', () => u.connections++);
  u.server.on('upgrade', (_req, socket: net.Socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(`echo:${d.toString()}`));
    socket.on('end', () => socket.end());
  });
  await new Promise<void>((resolve) => u.server.listen(0, '127.0.0.1', resolve));
  u.port = (u.server.address() as AddressInfo).port;
  return u;
}

describe('relayConnections', () => {
  let a: Upstream;
  let b: Upstream;
  let raw: net.Server;
  let front: http.Server;
  let relays: RelaySet;
  let port: number;
  const done: Array<[string, number]> = [];
  /** Upstream connections made with the relay's `onread`. */
  let withOnread = 0;

  beforeAll(async () => {
    [a, b] = await Promise.all([upstream('a'), upstream('b')]);
    // An upstream whose answer runs until it closes the connection (no length, not chunked).
    // Or, for /split, whose answer's head comes in two writes apart (the relay keeps its first part across reads).
    raw = net.createServer((s) =>
      s.once('data', (d: Buffer) => {
        if (!d.toString().startsWith('GET /split ')) return void s.end('HTTP/1.1 200 OK\r\n\r\nuntil the close');
        s.setNoDelay(true);
        s.write('HTTP/1.1 200 OK\r\nContent-Le');
        setTimeout(() => s.end('ngth: 5\r\nX-Part: two\r\n\r\nsplit'), 50);
      }),
    );
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const rawPort = (raw.address() as AddressInfo).port;
    front = http.createServer((req, res) => res.end(`fallback ${req.method} ${req.url}`));
    // The raw upstream's connections are read through 'data' events, the others' with `onread` into the relay's buffer.
    const to = (key: string, p: number) => ({
      key,
      connect: (onread?: net.OnReadOpts) => {
        if (key === 'raw') return net.connect(p, '127.0.0.1');
        if (onread) withOnread++;
        return net.connect({ port: p, host: '127.0.0.1', onread });
      },
      forward: (head: Head, bytes: Buffer) => ({
        bytes: Buffer.concat([bytes.subarray(0, bytes.length - 2), Buffer.from('x-relayed: yes\r\n\r\n')]),
        exchange: `${key} ${head.target}`,
      }),
    });
    relays = relayConnections<string>(front, false, {
      route: (head) => {
        const host = valueOf(head, 'host');
        if (host === 'a') return to('a', a.port);
        if (host === 'b') return to('b', b.port);
        if (host === 'raw') return to('raw', rawPort);
        if (host === 'split') return to('split', rawPort);
        if (host === 'later') return new Promise((resolve) => setTimeout(() => resolve(to('a', a.port)), 20));
        if (host === 'closed') return to('closed', 1);
        return undefined;
      },
      answer: (_head, bytes, exchange) => Buffer.concat([bytes.subarray(0, bytes.length - 2), Buffer.from(`x-exchange: ${exchange}\r\n\r\n`)]),
      done: (exchange, status) => done.push([exchange, status]),
      idleMs: 5000,
      headMs: 1000,
      timeoutMs: 5000,
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    port = (front.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await relays.close(1000);
    for (const s of [front, a.server, b.server]) s.closeAllConnections();
    await Promise.all([front, a.server, b.server, raw].map((s) => new Promise((resolve) => s.close(resolve))));
  });

  /** Sends bytes on a new connection and reads until `until` holds for what came back, or the connection closes. */
  async function talk(bytes: string | Buffer, until: (text: string) => boolean = () => false): Promise<{ text: string; closed: boolean }> {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let closed = false;
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.write(bytes);
    await new Promise<void>((resolve) => {
      socket.on('close', () => {
        closed = true;
        resolve();
      });
      socket.on('data', () => until(text) && resolve());
      setTimeout(resolve, 3000);
    });
    socket.destroy();
    return { text, closed };
  }

  const count = (text: string, what: string) => text.split(what).length - 1;

  it('relays keep-alive requests over one upstream connection, heads rewritten both ways, bodies by length and chunked', async () => {
    const before = a.connections;
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
    try {
      const answers: string[] = [];
      for (const body of [undefined, 'twelve bytes', ['ch', 'unked']]) {
        const res = await pool.request({
          path: '/x?y=1',
          method: body ? 'POST' : 'GET',
          headers: { host: 'a' },
          // An array: a body of unknown length, sent chunked.
          body: Array.isArray(body) ? Readable.from(body) : body,
        });
        answers.push(`${res.statusCode} ${res.headers['x-exchange']} ${await res.body.text()}`);
      }
      expect(answers).toEqual(['200 a /x?y=1 a GET /x?y=1 yes 0', '200 a /x?y=1 a POST /x?y=1 yes 12', '200 a /x?y=1 a POST /x?y=1 yes 7']);
      expect(a.connections - before).toBe(1);
      expect(withOnread).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  });

  it('answers pipelined requests in order, switching upstreams and handing over to the HTTP server when the route says so', async () => {
    const requests =
      'GET /1 HTTP/1.1\r\nHost: a\r\n\r\n' +
      'POST /2 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n' +
      'HEAD /3 HTTP/1.1\r\nHost: a\r\n\r\n' +
      'GET /empty HTTP/1.1\r\nHost: a\r\n\r\n' +
      'GET /4 HTTP/1.1\r\nHost: b\r\n\r\n' +
      'GET /5 HTTP/1.1\r\nHost: later\r\n\r\n' +
      'GET /6 HTTP/1.1\r\nHost: elsewhere\r\n\r\n' +
      'GET /7 HTTP/1.1\r\nHost: a\r\n\r\n';
    const { text } = await talk(requests, (t) => t.includes('fallback GET /7'));
    const bodies = ['a GET /1 yes 0', 'a POST /2 yes 3', 'b GET /4 yes 0', 'a GET /5 yes 0', 'fallback GET /6', 'fallback GET /7'];
    let at = 0;
    for (const body of bodies) {
      const found = text.indexOf(body, at);
      expect(found).toBeGreaterThan(at - 1);
      at = found + body.length;
    }
    // HEAD: a length and no body; 204: no body; the next answer read right after each.
    expect(text).toMatch(/x-exchange: a \/3\r\n\r\nHTTP\/1\.1 204 No Content/);
    expect(text).toMatch(/x-exchange: a \/empty\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(count(text, 'HTTP/1.1 200')).toBe(7);
  });

  it('refuses what two parsers could read differently before anything reaches the upstream, leaving the answer to the HTTP server', async () => {
    const before = a.connections;
    const cases = [
      'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd',
      'GET / HTTP/1.1\r\nHost: a\r\nX-Folded: one\r\n two\r\n\r\n',
      'GET / HTTP/1.1\nHost: a\r\n\r\n',
      'POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n',
      'GET / HTTP/1.1\r\nHost : a\r\n\r\n',
    ];
    for (const request of cases) {
      // Node's parser refuses each too (its 400, and the connection closed), so none is served at all.
      const { text, closed } = await talk(request);
      expect([request, text.split('\r\n')[0], closed]).toEqual([request, expect.stringMatching(/^HTTP\/1\.1 400 /), true]);
    }
    expect(a.connections).toBe(before);
    // A head over 16 KiB: the HTTP server's own answer (431), not the relay's.
    const big = await talk(`GET / HTTP/1.1\r\nHost: a\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`);
    expect(big.text.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    // A malformed chunk mid-stream: the connection is cut.
    const cut = await talk('POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n');
    expect(cut.closed).toBe(true);
    expect(cut.text).not.toContain('a POST');
    expect(a.connections - before).toBeLessThanOrEqual(1);
  });

  it('passes an upgrade through and then the bytes of the new protocol both ways', async () => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.write('GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    await new Promise<void>((resolve) => socket.on('data', () => text.includes('\r\n\r\n') && resolve()));
    expect(text).toMatch(/^HTTP\/1\.1 101 /);
    socket.write('hello');
    await new Promise<void>((resolve) => socket.on('data', () => text.includes('echo:hello') && resolve()));
    // The client's end is passed on: the upstream closes, and so does the relayed connection.
    socket.end();
    await once(socket, 'close');
  });

  it('ends an answer that runs until the upstream closes with the close; an event stream is not cut between events', async () => {
    const { text, closed } = await talk('GET / HTTP/1.1\r\nHost: raw\r\n\r\n');
    expect(closed).toBe(true);
    expect(text).toMatch(/\r\n\r\nuntil the close$/);
    const stream = await talk('GET /stream HTTP/1.1\r\nHost: a\r\n\r\n', (t) => t.includes('data: 2'));
    expect(stream.text).toContain('data: 1');
  });

  it('keeps the part of an answer head that came in one read until the rest comes in the next', async () => {
    const { text } = await talk('GET /split HTTP/1.1\r\nHost: split\r\n\r\n', (t) => t.endsWith('split'));
    expect(text).toBe('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Part: two\r\nx-exchange: split /split\r\n\r\nsplit');
  });

  it('hands a request whose upstream cannot be reached to the HTTP server, and one stuck head is refused in time', async () => {
    const { text } = await talk('GET /nobody HTTP/1.1\r\nHost: closed\r\n\r\n', (t) => t.includes('fallback'));
    expect(text).toContain('fallback GET /nobody');
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.write('GET / HTTP/1.1\r\n');
    const trickle = setInterval(() => socket.write('X-A: b\r\n'), 200);
    await once(socket, 'close');
    clearInterval(trickle);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"status":408');
  });

  it('streams a large answer to a slow reader and a large upload, every byte in order', async () => {
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
    try {
      const res = await pool.request({ path: '/big', method: 'GET', headers: { host: 'a' } });
      let total = 0;
      let same = true;
      for await (const chunk of res.body) {
        same &&= BIG.subarray(total, total + (chunk as Buffer).length).equals(chunk as Buffer);
        total += (chunk as Buffer).length;
        if (total < 1024 * 1024) await new Promise((r) => setTimeout(r, 5));
      }
      expect(total).toBe(8 * 1024 * 1024);
      expect(same).toBe(true);
      const up = await pool.request({ path: '/up', method: 'PUT', headers: { host: 'a' }, body: Buffer.alloc(5 * 1024 * 1024, 1) });
      expect(await up.body.text()).toBe(`a PUT /up yes ${5 * 1024 * 1024}`);
    } finally {
      await pool.close();
    }
  });

  it('closes gracefully: an answer under way is sent whole, then the connection ends', async () => {
    // done() saw every relayed exchange with its status so far.
    expect(done.filter(([, status]) => status === 200).length).toBeGreaterThan(5);
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.write('GET /slow HTTP/1.1\r\nHost: b\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const closing = relays.close(2000);
    await once(socket, 'close');
    await closing;
    expect(text).toMatch(/\r\n\r\nslow$/);
    expect(relays.size).toBe(0);
  });
});

describe('relayConnections behind TLS', () => {
  it("reads a TLS client's upstream through 'data' events: its writes complete after the read, so a reused buffer would be a new one each read", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocg-relay-'));
    const origin = http.createServer((req, res) => res.end(`origin ${req.url}`));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const tls = await ensureLocalTls({ dir, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
    const front = https.createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, (_req, res) => res.end('fallback'));
    const given: Array<net.OnReadOpts | undefined> = [];
    const relays = relayConnections<number>(front, true, {
      route: () => ({
        key: 'origin',
        connect: (onread) => {
          given.push(onread);
          return net.connect({ port: (origin.address() as AddressInfo).port, host: '127.0.0.1', onread });
        },
        forward: (_head, bytes) => ({ bytes, exchange: 0 }),
      }),
      answer: (_head, bytes) => bytes,
      idleMs: 5000,
      headMs: 1000,
      timeoutMs: 5000,
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const pool = new Pool(`https://127.0.0.1:${(front.address() as AddressInfo).port}`, { connections: 1, connect: { ca: readFileSync(tls.caCertFile), servername: 'localhost' } });
    try {
      const bodies: string[] = [];
      for (const path of ['/1', '/2']) bodies.push(await (await pool.request({ path, method: 'GET' })).body.text());
      expect(bodies).toEqual(['origin /1', 'origin /2']);
      expect(given).toEqual([undefined]);
    } finally {
      await pool.close();
      await relays.close(1000);
      front.closeAllConnections();
      origin.closeAllConnections();
      await Promise.all([front, origin].map((s) => new Promise((resolve) => s.close(resolve))));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
