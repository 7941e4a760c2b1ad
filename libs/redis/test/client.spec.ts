import { createServer, type Server, type Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { createRedis, pingRedis } from '../src';
import { freePort, startEphemeralRedis, testRedis, waitFor, type EphemeralServer } from '@ocg/testing';

const clients: Redis[] = [];
const open = (url: string, opts?: Parameters<typeof createRedis>[1]) => {
  const r = createRedis(url, { onError: () => undefined, ...opts });
  clients.push(r);
  return r;
};

afterEach(() => clients.splice(0).forEach((r) => r.disconnect()));

describe('with a Redis that goes away', () => {
  let server: EphemeralServer;
  beforeAll(async () => {
    server = await startEphemeralRedis();
  });
  afterAll(() => server.dispose());

  it('pingRedis fails clearly while Redis is stopped and succeeds again once it is back', async () => {
    const r = open(server.url);
    await pingRedis(r);
    await server.stop();
    await expect(pingRedis(r, 500)).rejects.toThrow(/^Redis ping failed \(redis:\/\/127\.0\.0\.1:\d+\/0\): /);
    await server.start();
    await waitFor(() => pingRedis(r).then(() => true), { timeoutMs: 5000, what: 'the client to reconnect' });
  });

  it('fails commands within seconds while Redis is down instead of queueing them forever', async () => {
    const r = open(server.url);
    await r.ping();
    await server.stop();
    const started = Date.now();
    await expect(r.get('anything')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3000);
    await server.start();
  });

  it('fails a command at once (not after reconnect attempts) while a connected client has lost Redis', async () => {
    const r = open(server.url);
    await r.ping();
    await server.stop();
    await waitFor(() => r.status !== 'ready', { what: 'the client to notice' });
    const started = Date.now();
    for (let i = 0; i < 5; i++) await expect(r.get('anything')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(300);
    await server.start();
    await waitFor(() => r.get('anything').then(() => true), { timeoutMs: 5000, what: 'commands to work again after the reconnect' });
  });

  it('queues the commands issued before the first connection', async () => {
    const r = open(server.url, { lazyConnect: true });
    await expect(Promise.all([r.set('early', '1'), r.get('early')])).resolves.toEqual(['OK', '1']);
  });
});

describe('with a server that accepts and never answers', () => {
  let silent: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    sockets.forEach((s) => s.destroy());
    await new Promise((r) => silent.close(r));
  });

  it('fails a command after the default command timeout (1 s) instead of waiting forever', async () => {
    const port = (silent.address() as { port: number }).port;
    const r = open(`redis://127.0.0.1:${port}`);
    const started = Date.now();
    await expect(r.get('anything')).rejects.toThrow(/timed out/i);
    expect(Date.now() - started).toBeLessThan(2000);
  }, 10_000);
});

it('reports connection errors to onError instead of throwing', async () => {
  const errors: Error[] = [];
  const r = open(`redis://127.0.0.1:${await freePort()}`, { onError: (e) => errors.push(e) });
  await waitFor(() => errors.length > 0, { what: 'a connection error' });
  expect(errors[0].message).toMatch(/ECONNREFUSED/);
  expect(r.status).not.toBe('end'); // still trying to reconnect
});

it('names the connection after the service', async () => {
  const { url } = await testRedis();
  const r = open(url, { name: 'client-manager' });
  expect(await r.client('GETNAME')).toBe('client-manager');
});

it('connects only on first use when lazyConnect is set', async () => {
  const { url } = await testRedis();
  const r = open(url, { lazyConnect: true });
  expect(r.status).toBe('wait');
  await r.ping();
  expect(r.status).toBe('ready');
});

describe('autoPipelining', () => {
  /** Socket writes of the client while `issue` runs its commands (all issued in one turn of the event loop). */
  async function writesFor(r: Redis, issue: () => Promise<unknown>[]): Promise<{ writes: number; results: PromiseSettledResult<unknown>[] }> {
    await r.ping();
    const stream = (r as unknown as { stream: Socket }).stream;
    const write = stream.write.bind(stream);
    let writes = 0;
    stream.write = ((...args: Parameters<Socket['write']>) => {
      writes++;
      return write(...args);
    }) as Socket['write'];
    try {
      const results = await Promise.allSettled(issue());
      return { writes, results };
    } finally {
      stream.write = write;
    }
  }

  it('sends the commands of one turn in one write, each with its own answer or error; a duplicate (a subscriber) sends each at once', async () => {
    const { url } = await testRedis();
    const key = `pipelined:${process.pid}:${Date.now()}`;
    const commands = (r: Redis) => () => [r.set(key, 'text'), r.get(key), r.incr(key), r.exists(key), r.del(key)];
    const pipelined = open(url, { autoPipelining: true });
    const { writes, results } = await writesFor(pipelined, commands(pipelined));
    expect(writes).toBe(1);
    expect(results.map((x) => (x.status === 'fulfilled' ? x.value : 'error'))).toEqual(['OK', 'text', 'error', 1, 1]);
    const duplicate = pipelined.duplicate();
    clients.push(duplicate);
    expect((await writesFor(duplicate, commands(duplicate))).writes).toBe(5);
  });
});
