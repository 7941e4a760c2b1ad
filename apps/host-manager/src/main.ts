import 'reflect-metadata';
import { runService } from '@ocg/http';
import { createDataSource } from '@ocg/db';
import { createRedis } from '@ocg/redis';
import { loadConfig } from './config';
import { buildApp } from './app';
import { migrations } from './migrations';

runService({
  name: 'host-manager',
  loadConfig,
  async start(config, logger) {
    const db = await createDataSource({ url: config.DATABASE_URL, schema: 'host_manager', entities: [], migrations });
    const redis = createRedis(config.REDIS_URL, { name: 'host-manager' });
    return {
      app: buildApp({ logger, db, redis }),
      stop: async () => {
        await db.destroy();
        redis.disconnect();
      },
    };
  },
});
