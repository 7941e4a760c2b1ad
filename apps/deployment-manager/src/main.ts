import 'reflect-metadata';
import { runService } from '@ocg/http';
import { remoteKeyValidator } from '@ocg/auth';
import { createDataSource } from '@ocg/db';
import { createRedis } from '@ocg/redis';
import { loadConfig } from './config';
import { buildApp } from './app';
import { entities } from './entities';
import { migrations } from './migrations';
import { composeServices } from './services';
import { sealPlaintextAtRest } from './cas/seal-at-rest';

runService({
  name: 'deployment-manager',
  loadConfig,
  async start(config, logger, tracing, metrics) {
    const db = await createDataSource({
      url: config.DATABASE_URL,
      schema: 'deployment_manager',
      entities,
      migrations,
      log: (level, msg) => logger[level]({ component: 'db' }, msg),
    });
    // Concurrent claims and posts each send a command or two: batched per turn of the event loop (ADR 0082).
    const redis = createRedis(config.REDIS_URL, { name: 'deployment-manager', autoPipelining: true, onError: (err) => logger.warn({ err: err.message }, 'redis') });
    const keys = remoteKeyValidator({ clientManagerUrl: config.CLIENT_MANAGER_URL, redis, cacheTtlMs: config.API_KEY_CACHE_TTL_MS, internalToken: config.INTERNAL_TOKEN });
    const deps = { logger, db, redis, keys, settings: config, tracing, metrics };
    const services = composeServices(deps);
    // Content stored before sealing existed is sealed before the first request (ADR 0035).
    await sealPlaintextAtRest(services, services.seal, logger);
    services.uploads.start();
    // The sweeper also finishes what a crash left: jobs ended but not settled, holds placed but not recorded.
    services.sweeper.start();
    return {
      app: buildApp(deps, services),
      // Followers reconnect with their last event id to another replica.
      drain: () => services.eventStreams.close(),
      stop: async () => {
        await services.sweeper.stop();
        await services.uploads.stop();
        services.waker.close();
        services.wakeups.close();
        await keys.close();
        await db.destroy();
        redis.disconnect();
      },
    };
  },
});
