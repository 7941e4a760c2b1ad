import 'reflect-metadata';
import { runService } from '@ocg/http';
import { createDataSource } from '@ocg/db';
import { createRedis } from '@ocg/redis';
import { loadConfig } from './config';
import { buildApp, startServices } from './app';
import { entities } from './entities';
import { migrations } from './migrations';

runService({
  name: 'client-manager',
  loadConfig,
  async start(config, logger, metrics) {
    const db = await createDataSource({ url: config.DATABASE_URL, schema: 'client_manager', entities, migrations, log: (level, msg) => logger[level]({ component: 'db' }, msg) });
    const redis = createRedis(config.REDIS_URL, { name: 'client-manager', onError: (err) => logger.warn({ err: err.message }, 'redis') });
    if (config.MASTER_KEY === undefined) logger.warn('MASTER_KEY is not set: sealing secrets with the public development key (allowed because DEVELOPMENT_MACHINE is set)');
    const deps = { logger, db, redis, config, metrics };
    return {
      app: buildApp(deps, await startServices(deps)),
      stop: async () => {
        await db.destroy();
        redis.disconnect();
      },
    };
  },
});
