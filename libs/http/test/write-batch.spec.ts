import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLocalTls } from '@ocg/testing';
import { holdWrites, listen, writeAtOnce } from '../src';

/** A loopback TCP server and `count` clients connected to it: the server's sockets, in the clients' order, and what each client has read. */
async function connections(count: number): Promise<{ server: net.Server; accepted: Socket[]; clients: Socket[]; read: string[]; close(): Promise<void> }> {
  const accepted: Socket[] = [];
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const clients: Socket[] = [];
  const read: string[] = [];
  for (let i = 0; i < count; i++) {
    const came = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const client = net.connect(port, '127.0.0.1');
    read.push('');
    client.setEncoding('utf8').on('data', (s: string) => (read[i] += s));
    clients.push(client);
    accepted.push(await came);
  }
  return {
    server,
    accepted,
    clients,
    read,
    close: async () => {
      for (const s of [...clients, ...accepted]) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type Connections = Awaited<ReturnType<typeof connections>>;

/** Runs `body` with `count` connections, the first `held` of the server's sockets holding their writes; closes them after. */
async function withConnections(count: number, held: number, body: (c: Connections) => Promise<void>): Promise<void> {
  const c = await connections(count);
  try {
    for (const socket of c.accepted.slice(0, held)) holdWrites(socket);
    await body(c);
  } finally {
    await c.close();
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('holdWrites', () => {
  it('holds a socket’s writes until the end of the I/O phase, then makes them, every socket’s in order', async () => {
    await withConnections(2, 2, async (c) => {
      const [a, b] = c.accepted;
      const done: string[] = [];
      a.write('one ', () => done.push('a1'));
      b.write('two', () => done.push('b'));
      a.write('three', () => done.push('a2'));
      // Nothing has gone yet: the bytes wait in the streams, their callbacks too.
      expect(a.writableLength).toBe('one three'.length);
      expect(b.writableLength).toBe('two'.length);
      expect(done).toEqual([]);
      await turn();
      // The phase is over: both sockets' writes were made, in the order they came.
      expect(a.writableLength).toBe(0);
      expect(b.writableLength).toBe(0);
      await until(() => c.read[0] === 'one three' && c.read[1] === 'two');
      expect(done).toEqual(['a1', 'b', 'a2']);
    });
  });

  it('holds writes handed over together (writev), and makes a second batch queued behind a held write in the same release', async () => {
    await withConnections(2, 2, async (c) => {
      const [a, b] = c.accepted;
      // Corked writes reach the socket together, through `_writev`.
      a.cork();
      a.write('one ');
      a.write('two');
      a.uncork();
      expect(a.writableLength).toBe('one two'.length);
      b.write('first ');
      b.cork();
      b.write('second ');
      b.write('third');
      b.uncork();
      await turn();
      // b's two queued chunks came as one batch when its first write completed, and went with it.
      expect(a.writableLength).toBe(0);
      expect(b.writableLength).toBe(0);
      await until(() => c.read[0] === 'one two' && c.read[1] === 'first second third');
    });
  });

  it('writes at once on a socket it was not given, or after writeAtOnce, keeping a held write first', async () => {
    await withConnections(2, 0, async (c) => {
      const [plain, held] = c.accepted;
      plain.write('now');
      expect(plain.writableLength).toBe(0);
      holdWrites(held);
      held.write('first ');
      writeAtOnce(held);
      held.write('second');
      // The held write is still waiting, so the next one queues behind it.
      expect(held.writableLength).toBe('first second'.length);
      await until(() => c.read[1] === 'first second');
      held.write(' third');
      expect(held.writableLength).toBe(0);
      writeAtOnce(plain); // a socket that never held: nothing to undo
      plain.write('!');
      expect(plain.writableLength).toBe(0);
      await until(() => c.read[0] === 'now!' && c.read[1] === 'first second third');
    });
  });

  it('fails only the write of a socket destroyed while it was held; the others go', async () => {
    await withConnections(2, 2, async (c) => {
      const [gone, kept] = c.accepted;
      const errors: unknown[] = [];
      gone.on('error', (err) => errors.push(err));
      let callback: Error | null | undefined = null;
      gone.write('lost', (err) => (callback = err));
      kept.write('kept');
      gone.destroy();
      await turn();
      await until(() => c.read[1] === 'kept');
      expect(callback).toMatchObject({ code: 'ERR_SOCKET_CLOSED' });
      expect(errors).toEqual([]);
      expect(c.read[0]).toBe('');
    });
  });

  it('destroys a socket whose write throws, and still makes the other sockets’ writes', async () => {
    class Throwing extends net.Socket {
      override _write(): void {
        throw new Error('boom');
      }
    }
    const odd = new Throwing();
    await withConnections(1, 1, async (c) => {
      holdWrites(odd);
      const failed = new Promise<Error>((resolve) => odd.once('error', resolve));
      odd.write('x');
      c.accepted[0].write('still sent');
      await turn();
      expect((await failed).message).toBe('boom');
      expect(odd.destroyed).toBe(true);
      await until(() => c.read[0] === 'still sent');
    }).finally(() => odd.destroy());
  });

  it('ends a socket after its held writes, as end() does after any write', async () => {
    await withConnections(1, 1, async (c) => {
      const [a] = c.accepted;
      a.end('bye');
      const ended = new Promise((resolve) => c.clients[0].once('end', resolve));
      await ended;
      expect(c.read[0]).toBe('bye');
    });
  });
});

describe('listen holds its connections’ writes', () => {
  /** The answer's bytes still in the socket right after `res.end`: held, or written at once. */
  const pendingAfterEnd = (seen: number[]) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.end('answer');
    seen.push(res.socket?.writableLength ?? -1);
  };

  it('on HTTP by default, and not with holdWrites: false', async () => {
    const seen: number[] = [];
    const held = await listen(pendingAfterEnd(seen), { host: '127.0.0.1', port: 0 });
    const atOnce = await listen(pendingAfterEnd(seen), { host: '127.0.0.1', port: 0, holdWrites: false });
    try {
      expect(await (await fetch(held.url)).text()).toBe('answer');
      expect(await (await fetch(atOnce.url)).text()).toBe('answer');
      expect(seen[0]).toBeGreaterThan('answer'.length);
      expect(seen[1]).toBe(0);
    } finally {
      await held.close();
      await atOnce.close();
    }
  });

  it('on HTTPS, on the TLS socket', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'write-batch-'));
    try {
      const files = await ensureLocalTls({ dir, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
      const seen: number[] = [];
      const server = await listen(pendingAfterEnd(seen), { host: '127.0.0.1', port: 0, tls: { cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) } });
      try {
        const text = await new Promise<string>((resolve, reject) => {
          https
            .get(server.url, { ca: readFileSync(files.caCertFile) }, (res) => {
              let body = '';
              res.setEncoding('utf8').on('data', (s: string) => (body += s));
              res.on('end', () => resolve(body));
            })
            .on('error', reject);
        });
        expect(text).toBe('answer');
        expect(seen[0]).toBeGreaterThan('answer'.length);
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
