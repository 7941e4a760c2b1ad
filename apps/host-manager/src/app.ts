import type express from 'express';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { ControllerRegistry, buildServiceApp, createAddressPolicy, type Logger, type Metrics, type Tracing } from '@ocg/http';
import { createExpressAuthentication, type KeyValidator } from '@ocg/auth';
import { pingDb } from '@ocg/db';
import { pingRedis } from '@ocg/redis';
import type { HostManagerConfig } from './config';
import { RegisterRoutes } from './generated/routes';
import { BenchmarkRepository } from './benchmarks/benchmark.repository';
import { BenchmarkService } from './benchmarks/benchmark.service';
import { BenchmarksController } from './benchmarks/benchmarks.controller';
import { InternalMarketsController } from './markets/internal-markets.controller';
import { MarketRepository } from './markets/market.repository';
import { MarketService } from './markets/market.service';
import { MarketsController } from './markets/markets.controller';
import { HeartbeatsController } from './nodes/heartbeats.controller';
import { InternalNodesController } from './nodes/internal-nodes.controller';
import { NodeControlService } from './nodes/node-control.service';
import { DeploymentManagerClient } from './nodes/node-jobs.client';
import { NodeRepository } from './nodes/node.repository';
import { NodeService } from './nodes/node.service';
import { NodesController } from './nodes/nodes.controller';
import { NodePresence } from './nodes/presence';
import { nodeMetrics } from './nodes/node-metrics';
import { BenchmarkTemplatesController } from './templates/benchmark-templates.controller';
import { TemplateApplyService } from './templates/template-apply.service';

export type HostManagerSettings = Pick<
  HostManagerConfig,
  | 'INTERNAL_TOKEN'
  | 'DEPLOYMENT_MANAGER_URL'
  | 'DEPLOYMENT_MANAGER_TIMEOUT_MS'
  | 'NODE_PRESENCE_TTL_SECONDS'
  | 'NODE_LAST_SEEN_WRITE_SECONDS'
  | 'NODE_SIGNATURE_MAX_AGE_SECONDS'
  | 'BENCHMARK_APPLY_LOCK_TIMEOUT_MS'
> &
  Partial<Pick<HostManagerConfig, 'ALLOW_PRIVATE_INGRESS' | 'INGRESS_ALLOW_CIDRS'>>;

export interface HostManagerDeps {
  logger: Logger;
  db: DataSource;
  redis: Redis;
  /** Answers for API keys: client-manager in production (remoteKeyValidator). */
  keys: KeyValidator;
  settings: HostManagerSettings;
  /** Records a span per request when OTEL_TRACES_EXPORTER is set (runService makes it). */
  tracing?: Tracing;
  /** The service's Prometheus registry (main makes it when METRICS_PORT is set). */
  metrics?: Metrics;
}

/** The composition of host-manager's objects; main.ts and tests both call it. */
export function buildApp({ logger, db, redis, keys, settings, tracing, metrics }: HostManagerDeps): express.Express {
  const authentication = createExpressAuthentication({ keys, internalToken: settings.INTERNAL_TOKEN, nodeSignatureMaxAgeSeconds: settings.NODE_SIGNATURE_MAX_AGE_SECONDS });
  const markets = new MarketService(new MarketRepository(db));
  const nodeRepository = new NodeRepository(db);
  const presence = new NodePresence(redis, settings.NODE_PRESENCE_TTL_SECONDS, settings.NODE_LAST_SEEN_WRITE_SECONDS, logger);
  const ingressPolicy = createAddressPolicy({ allowPrivate: settings.ALLOW_PRIVATE_INGRESS, allowCidrs: settings.INGRESS_ALLOW_CIDRS });
  const nodes = new NodeService(nodeRepository, markets, presence, ingressPolicy);
  const deploymentManager = new DeploymentManagerClient(settings.DEPLOYMENT_MANAGER_URL, settings.INTERNAL_TOKEN, settings.DEPLOYMENT_MANAGER_TIMEOUT_MS);
  const control = new NodeControlService(nodeRepository, presence, deploymentManager);
  const benchmarks = new BenchmarkRepository(db);
  if (metrics) nodeMetrics(metrics, nodeRepository, presence);
  const controllers = new ControllerRegistry()
    .register(MarketsController, new MarketsController(markets, control))
    .register(InternalMarketsController, new InternalMarketsController(markets, nodes))
    .register(InternalNodesController, new InternalNodesController(nodes))
    .register(NodesController, new NodesController(nodes, control))
    .register(HeartbeatsController, new HeartbeatsController(nodes))
    .register(BenchmarksController, new BenchmarksController(new BenchmarkService(benchmarks)))
    .register(BenchmarkTemplatesController, new BenchmarkTemplatesController(new TemplateApplyService(benchmarks, markets, settings.BENCHMARK_APPLY_LOCK_TIMEOUT_MS)));
  return buildServiceApp({
    service: 'host-manager',
    logger,
    tracing,
    metrics,
    controllers,
    checks: { postgres: () => pingDb(db), redis: () => pingRedis(redis) },
    register: (app) => {
      // Read by authentication.ts at request time.
      app.locals.authentication = authentication;
      RegisterRoutes(app);
    },
  });
}
