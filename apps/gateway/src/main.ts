import { openApiDocument } from '@ocg/api-spec';
import { runService } from '@ocg/http';
import { createRedis } from '@ocg/redis';
import { loadConfig, upstreamsOf } from './config';
import { createGateway } from './app';

runService({
  name: 'gateway',
  loadConfig,
  async start(config, logger) {
    const redis = createRedis(config.REDIS_URL, { name: 'gateway' });
    const gateway = createGateway({
      logger,
      redis,
      document: openApiDocument,
      upstreams: upstreamsOf(config),
      upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
      upstreamMaxSockets: config.UPSTREAM_MAX_SOCKETS,
    });
    return {
      app: gateway.handle,
      stop: async () => {
        gateway.close();
        redis.disconnect();
      },
    };
  },
});
