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
  async start(config, logger, tracing, metrics) {
    const db = await createDataSource({ url: config.DATABASE_URL, schema: 'client_manager', entities, migrations, log: (level, msg) => logger[level]({ component: 'db' }, msg) });
    const redis = createRedis(config.REDIS_URL, { name: 'client-manager', onError: (err) => logger.warn({ err: err.message }, 'redis') });
    if (config.MASTER_KEY === undefined) logger.warn('MASTER_KEY is not set: sealing secrets with the public development key (allowed because DEVELOPMENT_MACHINE is set)');
    const deps = { logger, db, redis, config, tracing, metrics };
    const services = await startServices(deps);
    return {
      app: buildApp(deps, services),
      stop: async () => {
        await services.memory.close();
        await db.destroy();
        redis.disconnect();
      },
    };
  },
});
