import 'reflect-metadata';
import { runService } from '@ocg/http';
import { remoteKeyValidator } from '@ocg/auth';
import { createDataSource } from '@ocg/db';
import { createRedis } from '@ocg/redis';
import { loadConfig } from './config';
import { buildApp } from './app';
import { entities } from './entities';
import { migrations } from './migrations';

runService({
  name: 'host-manager',
  loadConfig,
  async start(config, logger, tracing, metrics) {
    const db = await createDataSource({
      url: config.DATABASE_URL,
      schema: 'host_manager',
      entities,
      migrations,
      log: (level, msg) => logger[level]({ component: 'db' }, msg),
    });
    const redis = createRedis(config.REDIS_URL, { name: 'host-manager', onError: (err) => logger.warn({ err: err.message }, 'redis') });
    const keys = remoteKeyValidator({
      clientManagerUrl: config.CLIENT_MANAGER_URL,
      redis,
      cacheTtlMs: config.API_KEY_CACHE_TTL_MS,
      internalToken: config.INTERNAL_TOKEN,
    });
    return {
      app: buildApp({ logger, db, redis, keys, settings: config, tracing, metrics }),
      stop: async () => {
        await keys.close();
        await db.destroy();
        redis.disconnect();
      },
    };
  },
});
