/**
 * The remote validator while its Redis is down: invalidations cannot arrive,
 * so nothing is cached and every check asks client-manager (which validates
 * against Postgres), at once; caching resumes once the subscription is back.
 */
import http from 'node:http';
import type { Redis } from 'ioredis';
import { createRedis } from '@ocg/redis';
import { startEphemeralRedis, waitFor, type EphemeralServer } from '@ocg/testing';
import { generateApiKey } from '../../src/api-key';
import { remoteKeyValidator, type RemoteKeyValidator } from '../../src/service/remote-key-validator';

describe('remoteKeyValidator while Redis is down', () => {
  const key = generateApiKey();
  let asked = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      asked++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ valid: true, apiKeyId: 'key_1', scopes: ['jobs:read'], user: { id: 'usr_1', email: 'a@b.c' } }));
    });
  });
  let redisServer: EphemeralServer;
  let redis: Redis;
  let validator: RemoteKeyValidator;

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    redisServer = await startEphemeralRedis();
    redis = createRedis(redisServer.url, { onError: () => undefined });
    await redis.ping(); // connected: the service's client no longer queues while disconnected
    validator = remoteKeyValidator({ clientManagerUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`, redis });
    await validator.ready();
  });

  afterAll(async () => {
    await validator.close();
    redis.disconnect();
    await redisServer.dispose();
    server.close();
  });

  it('caches nothing while the subscription is down, answers at once, and caches again once Redis is back', async () => {
    await validator.validate(key);
    await validator.validate(key);
    expect(asked).toBe(1);
    await redisServer.stop();
    await waitFor(
      async () => {
        const before = asked;
        await validator.validate(key);
        return asked > before;
      },
      { timeoutMs: 5000, what: 'the cache to be dropped with the subscription' },
    );
    const before = asked;
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect(await validator.validate(key)).toMatchObject({ apiKeyId: 'key_1', userId: 'usr_1' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(asked - before).toBe(5);
    await redisServer.start();
    await validator.ready();
    await waitFor(
      async () => {
        await validator.validate(key);
        const after = asked;
        await validator.validate(key);
        return asked === after;
      },
      { timeoutMs: 10_000, what: 'caching to resume' },
    );
  });
});
