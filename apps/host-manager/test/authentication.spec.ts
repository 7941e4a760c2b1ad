import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { createDataSource } from '@ocg/db';
import { createLogger, listen, type RunningServer } from '@ocg/http';
import { captureLogs, testDatabase, testRedis } from '@ocg/testing';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { entities } from '../src/entities';
import { migrations } from '../src/migrations';

describe('authentication', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let db: DataSource;
  let redis: Redis;
  let redisUrl: string;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    database = await testDatabase();
    db = await createDataSource({ url: database.url, schema: 'host_manager', entities, migrations });
    redisUrl = (await testRedis()).url;
    redis = new Redis(redisUrl);
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    redis.disconnect();
    await db.destroy();
    await database.drop();
  });

  /** An app whose internal routes take this token (API keys are never valid here). */
  async function start(token: string): Promise<string> {
    const settings = loadConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, INTERNAL_TOKEN: token });
    const logger = createLogger({ service: 'host-manager', destination: captureLogs().stream });
    const server = await listen(buildApp({ logger, db, redis, keys: { validate: async () => null }, settings }), { host: '127.0.0.1', port: 0 });
    servers.push(server);
    return server.url;
  }

  it("stays each app's own: two apps in one process answer to their own internal token only", async () => {
    const tokens = ['first-app-internal-token', 'second-app-internal-token'];
    const urls = [await start(tokens[0]), await start(tokens[1])];
    const status = async (url: string, token: string) => (await fetch(`${url}/internal/nodes/unknown`, { headers: { 'x-ocg-internal-token': token } })).status;
    // 404: let in, and no such node; 401: the wrong token.
    expect([await status(urls[0], tokens[0]), await status(urls[0], tokens[1]), await status(urls[1], tokens[1]), await status(urls[1], tokens[0])]).toEqual([404, 401, 404, 401]);
  });
});
