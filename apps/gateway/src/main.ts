import { readFileSync } from 'node:fs';
import { openApiDocument } from '@ocg/api-spec';
import { createLogger, listen, onShutdown, runMain, type RunningServer } from '@ocg/http';
import { createRedis } from '@ocg/redis';
import { loadConfig, upstreamsOf } from './config';
import { createGateway } from './app';
import { redirectToHttps } from './redirect';
import { createIngress } from './ingress';
import { IngressResolver } from './ingress/resolver';
import { createPages } from './pages';

runMain('gateway', async () => {
  const config = loadConfig();
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const redis = createRedis(config.REDIS_URL, { name: 'gateway' });
  const ingress = config.INTERNAL_TOKEN
    ? createIngress({
        nodeDomain: config.NODE_DOMAIN,
        timeoutMs: config.INGRESS_TIMEOUT_MS,
        logger,
        resolver: new IngressResolver({
          deploymentManagerUrl: config.DEPLOYMENT_MANAGER_URL,
          hostManagerUrl: config.HOST_MANAGER_URL,
          internalToken: config.INTERNAL_TOKEN,
          cacheMs: config.INGRESS_CACHE_MS,
        }),
      })
    : undefined;
  if (!ingress) logger.warn('INTERNAL_TOKEN is not set: job and node hosts, job and market pages are not served');
  const pages = config.INTERNAL_TOKEN
    ? createPages({ deploymentManagerUrl: config.DEPLOYMENT_MANAGER_URL, clientManagerUrl: config.CLIENT_MANAGER_URL, hostManagerUrl: config.HOST_MANAGER_URL, internalToken: config.INTERNAL_TOKEN, logger })
    : undefined;
  const gateway = createGateway({
    logger,
    ingress,
    pages,
    redis,
    document: openApiDocument,
    upstreams: upstreamsOf(config),
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    upstreamMaxSockets: config.UPSTREAM_MAX_SOCKETS,
  });
  const tls = config.TLS_CERT_FILE && config.TLS_KEY_FILE ? { cert: readFileSync(config.TLS_CERT_FILE), key: readFileSync(config.TLS_KEY_FILE) } : undefined;
  const servers: RunningServer[] = [await listen(gateway.handle, { host: config.HOST, port: config.PORT, tls })];
  servers[0].server.on('upgrade', gateway.upgrade);
  logger.info({ url: servers[0].url, nodeDomain: config.NODE_DOMAIN }, 'gateway listening');
  if (tls && config.HTTP_REDIRECT_PORT !== undefined) {
    const redirect = await listen(redirectToHttps(config.PUBLIC_HTTPS_PORT ?? servers[0].port), { host: config.HOST, port: config.HTTP_REDIRECT_PORT });
    servers.push(redirect);
    logger.info({ url: redirect.url }, 'plain HTTP redirects to HTTPS');
  }
  onShutdown(logger, async () => {
    await Promise.all(servers.map((s) => s.close()));
    gateway.close();
    redis.disconnect();
  });
});
