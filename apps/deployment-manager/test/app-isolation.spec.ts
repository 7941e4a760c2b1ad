import { Redis } from 'ioredis';
import { createDataSource } from '@ocg/db';
import { INTERNAL_TOKEN_HEADER, createLogger, listen, type RunningServer } from '@ocg/http';
import { testDatabase, testRedis } from '@ocg/testing';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { entities } from '../src/entities';
import { migrations } from '../src/migrations';
import { composeServices } from '../src/services';
import { MASTER_KEY } from './support/managers';

it('gives each app in a process its own authentication, built from its own config', async () => {
  const database = await testDatabase();
  const redisDb = await testRedis();
  const db = await createDataSource({ url: database.url, schema: 'deployment_manager', entities, migrations });
  const redis = new Redis(redisDb.url);
  const logger = createLogger({ service: 'deployment-manager', level: 'silent' });
  // Never called: the managers' URLs lead nowhere and no route here takes an API key.
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: redisDb.url,
    MASTER_KEY,
    CLIENT_MANAGER_URL: 'http://127.0.0.1:9',
    HOST_MANAGER_URL: 'http://127.0.0.1:9',
    NODE_DOMAIN: 'node.test',
  };
  const started: { server: RunningServer; close(): void }[] = [];
  const start = async (token: string) => {
    const deps = { logger, db, redis, keys: { validate: async () => null }, settings: loadConfig({ ...env, INTERNAL_TOKEN: token }) };
    const services = composeServices(deps);
    const server = await listen(buildApp(deps, services), { host: '127.0.0.1', port: 0 });
    started.push({ server, close: () => services.waker.close() });
    return server.url;
  };
  const [first, second] = ['first-app-internal-token', 'second-app-internal-token'];
  try {
    const a = await start(first);
    const b = await start(second);
    const ask = async (url: string, token: string) => (await fetch(`${url}/internal/jobs/no-such-job`, { headers: { [INTERNAL_TOKEN_HEADER]: token } })).status;
    expect(await ask(a, first)).toBe(404);
    expect(await ask(b, second)).toBe(404);
    expect(await ask(a, second)).toBe(401);
    expect(await ask(b, first)).toBe(401);
  } finally {
    for (const s of started) {
      s.close();
      await s.server.close();
    }
    redis.disconnect();
    await db.destroy();
    await database.drop();
    await redisDb.flush();
  }
});
