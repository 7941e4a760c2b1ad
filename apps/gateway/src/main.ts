import { readFileSync } from 'node:fs';
import { openApiDocument } from '@ocg/api-spec';
import {
  cidrEntries,
  createAddressPolicy,
  createLogger,
  createTracing,
  listen,
  metricsOf,
  onShutdown,
  parseCidrList,
  runMain,
  serveMetrics,
  type RelaySet,
  type RunningServer,
} from '@ocg/http';
import { createRedis, redisKeys, subscribeJson } from '@ocg/redis';
import { loadConfig, upstreamsOf } from './config';
import { createGateway } from './app';
import { redirectToHttps } from './redirect';
import { createIngress } from './ingress';
import { relayIngress } from './ingress/relay';
import { IngressResolver } from './ingress/resolver';
import { createPages } from './pages';
import { RateLimiter } from '@ocg/redis';
import { startEdge, type Edge } from './edge';
import { certificateWatches, loadCertificatePair } from './certificates';

runMain('gateway', async () => {
  const config = loadConfig();
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  // The edge: callers' traceparents are continued, their sampled flags not obeyed.
  const tracing = createTracing({ service: 'gateway', settings: config, logger, edge: true });
  const metrics = metricsOf('gateway', config, logger);
  const redis = createRedis(config.REDIS_URL, { name: 'gateway' });
  // Pub/sub needs a connection of its own; ioredis subscribes again after Redis comes back.
  const subscriber = createRedis(config.REDIS_URL, { name: 'gateway-routes' });
  const trustedProxies = parseCidrList(config.TRUSTED_PROXIES);
  // The edge proxy (ADR 0093) starts once the gateway's handlers exist; the ingress tells it each forward it meets.
  let edge: Edge | undefined;
  const resolver = config.INTERNAL_TOKEN
    ? new IngressResolver({
        deploymentManagerUrl: config.DEPLOYMENT_MANAGER_URL,
        hostManagerUrl: config.HOST_MANAGER_URL,
        internalToken: config.INTERNAL_TOKEN,
        cacheMs: config.INGRESS_CACHE_MS,
        staleMs: config.INGRESS_STALE_MS,
        negativeMs: config.INGRESS_NEGATIVE_CACHE_MS,
      })
    : undefined;
  if (resolver) {
    const onChange = (change: { job?: unknown; status?: unknown }) => {
      if (typeof change?.job === 'string' && typeof change.status === 'string') resolver.apply({ job: change.job, status: change.status });
    };
    // Redis down at start: keep trying (once subscribed, ioredis subscribes again after each reconnect).
    const subscribe = (): void =>
      void subscribeJson(subscriber, redisKeys.jobRoutes(), onChange).catch((err: Error) => {
        logger.warn({ err: err.message }, 'job route changes not subscribed yet; retrying (routes are revalidated every INGRESS_CACHE_MS meanwhile)');
        subscriber.removeAllListeners('message'); // this connection is ours alone; the retry adds the listener again
        setTimeout(subscribe, 2000).unref();
      });
    subscribe();
  }
  const ingress = resolver
    ? createIngress({
        nodeDomain: config.NODE_DOMAIN,
        timeoutMs: config.INGRESS_TIMEOUT_MS,
        logger,
        resolver,
        policy: createAddressPolicy({ allowPrivate: config.ALLOW_PRIVATE_INGRESS, allowCidrs: config.INGRESS_ALLOW_CIDRS }),
        ca: config.INGRESS_CA_FILE ? readFileSync(config.INGRESS_CA_FILE) : undefined,
        trustedProxies,
        lookupLimit: new RateLimiter(redis, 'gateway-lookups', { limit: config.INGRESS_LOOKUPS_PER_MINUTE, windowSeconds: 60 }, logger),
        // With tracing on, every request is the gateway's to trace: the edge then hands it every request.
        onForward: config.EDGE_PORT === undefined || tracing.recording ? undefined : (label, job, forward) => edge?.learn(label, job, forward),
      })
    : undefined;
  if (!ingress) logger.warn('INTERNAL_TOKEN is not set: job and node hosts, job and market pages are not served');
  const pages = config.INTERNAL_TOKEN
    ? createPages({
        deploymentManagerUrl: config.DEPLOYMENT_MANAGER_URL,
        clientManagerUrl: config.CLIENT_MANAGER_URL,
        hostManagerUrl: config.HOST_MANAGER_URL,
        internalToken: config.INTERNAL_TOKEN,
        logger,
      })
    : undefined;
  const gateway = createGateway({
    logger,
    tracing,
    ingress,
    pages,
    redis,
    document: openApiDocument,
    upstreams: upstreamsOf(config),
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    upstreamMaxSockets: config.UPSTREAM_MAX_SOCKETS,
    trustedProxies,
    corsOrigins: config.CORS_ORIGINS,
    pageLimit: new RateLimiter(redis, 'gateway-pages', { limit: config.PAGE_VIEWS_PER_MINUTE, windowSeconds: 60 }, logger),
    metrics,
  });
  const gatewayFiles = config.TLS_CERT_FILE && config.TLS_KEY_FILE ? { certFile: config.TLS_CERT_FILE, keyFile: config.TLS_KEY_FILE } : undefined;
  const gatewayPair = gatewayFiles && loadCertificatePair(gatewayFiles);
  const tls = gatewayPair && { cert: gatewayPair.cert, key: gatewayPair.key };
  const servers: RunningServer[] = [await listen(gateway.handle, { host: config.HOST, port: config.PORT, tls })];
  servers[0].server.on('upgrade', gateway.upgrade);
  // Job hosts' connections relayed as bytes (ADR 0084); with tracing on, every request is served (and traced) by the HTTP server.
  const relays =
    ingress && config.INGRESS_RELAY && !tracing.recording
      ? relayIngress(servers[0].server, { ingress, logger, metrics, timeoutMs: config.INGRESS_TIMEOUT_MS, secure: Boolean(tls) })
      : undefined;
  // API requests relayed as bytes to their services (ADR 0086); after the ingress's relay, so each connection is offered here first.
  let edgeRelays: RelaySet | undefined;
  const apiRelays = config.API_RELAY && !tracing.recording ? gateway.relayApi(servers[0].server, Boolean(tls)) : undefined;
  logger.info({ url: servers[0].url, nodeDomain: config.NODE_DOMAIN }, 'gateway listening');
  const edgeFiles = config.EDGE_TLS_CERT_FILE && config.EDGE_TLS_KEY_FILE ? { certFile: config.EDGE_TLS_CERT_FILE, keyFile: config.EDGE_TLS_KEY_FILE } : gatewayFiles;
  const edgePair = edgeFiles === gatewayFiles ? gatewayPair : edgeFiles && loadCertificatePair(edgeFiles);
  const edgeTls = edgePair && { cert: edgePair.cert, key: edgePair.key };
  if (config.EDGE_PORT !== undefined && edgeTls && ingress && resolver) {
    edge = await startEdge({
      host: config.EDGE_HOST ?? config.HOST,
      port: config.EDGE_PORT,
      dir: config.EDGE_DIR,
      haproxy: config.EDGE_HAPROXY,
      threads: config.EDGE_THREADS,
      maxConnections: config.EDGE_MAX_CONNECTIONS,
      nodeDomain: config.NODE_DOMAIN,
      tls: edgeTls,
      trustedProxies: cidrEntries(config.TRUSTED_PROXIES),
      proxyProtocolFrom: cidrEntries(config.EDGE_PROXY_PROTOCOL_FROM),
      serverTimeoutMs: config.INGRESS_TIMEOUT_MS,
      keepAliveMs: servers[0].server.keepAliveTimeout,
      headMs: servers[0].server.headersTimeout,
      routeTtlMs: config.EDGE_ROUTE_TTL_MS,
      logger,
      metrics,
      onForwardFailed: (job) => resolver.forget(job),
      handle: gateway.handle,
      attach: (server) => {
        server.on('upgrade', gateway.upgrade);
        if (config.INGRESS_RELAY && !tracing.recording) edgeRelays = relayIngress(server, { ingress, logger, metrics, timeoutMs: config.INGRESS_TIMEOUT_MS, secure: false });
      },
    });
    const running = edge;
    resolver.onChange((job) => running.drop(job));
  }
  const edgeRunning = edge;
  const watches = certificateWatches({
    gateway: gatewayFiles && gatewayPair && { files: gatewayFiles, pair: gatewayPair, serve: (pair) => servers[0].setCertificate?.(pair) },
    edge: edgeRunning && edgeFiles && edgePair && { files: edgeFiles, pair: edgePair, serve: (pair) => edgeRunning.setCertificate(pair) },
    intervalMs: config.TLS_RELOAD_INTERVAL_MS,
    logger,
    metrics,
  });
  if (tls && config.HTTP_REDIRECT_PORT !== undefined) {
    const redirect = await listen(redirectToHttps(config.PUBLIC_HTTPS_PORT ?? servers[0].port), { host: config.HOST, port: config.HTTP_REDIRECT_PORT });
    servers.push(redirect);
    logger.info({ url: redirect.url }, 'plain HTTP redirects to HTTPS');
  }
  const metricsServer = await serveMetrics(metrics, config, logger);
  if (metricsServer) servers.push(metricsServer);
  onShutdown(logger, async () => {
    for (const watch of watches) watch.close();
    await Promise.all([edge?.close(), edgeRelays?.close(10_000), relays?.close(10_000), apiRelays?.close(10_000), ...servers.map((s) => s.close())]);
    gateway.close();
    redis.disconnect();
    subscriber.disconnect();
    await tracing.shutdown();
  });
});
