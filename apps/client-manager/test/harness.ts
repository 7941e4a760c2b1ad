import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { createDataSource } from '@ocg/db';
import { createLogger, listen, type RunningServer } from '@ocg/http';
import { captureLogs, testDatabase, testRedis } from '@ocg/testing';
import { buildApp } from '../src/app';
import { migrations } from '../src/migrations';

export interface Harness {
  url: string;
  db: DataSource;
  redis: Redis;
  logs: ReturnType<typeof captureLogs>;
  close(): Promise<void>;
}

/** client-manager in-process on a fresh database and the test Redis. */
export async function startClientManager(databaseUrl?: string): Promise<Harness> {
  const database = databaseUrl ? undefined : await testDatabase();
  const db = await createDataSource({ url: databaseUrl ?? database!.url, schema: 'client_manager', entities: [], migrations });
  const redis = new Redis((await testRedis()).url);
  const logs = captureLogs();
  const server: RunningServer = await listen(buildApp({ logger: createLogger({ service: 'client-manager', destination: logs.stream }), db, redis }), {
    host: '127.0.0.1',
    port: 0,
  });
  return {
    url: server.url,
    db,
    redis,
    logs,
    close: async () => {
      await server.close();
      await db.destroy().catch(() => undefined);
      redis.disconnect();
      await database?.drop();
    },
  };
}
