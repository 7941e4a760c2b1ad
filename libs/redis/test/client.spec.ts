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
