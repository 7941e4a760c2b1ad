import type express from 'express';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { ControllerRegistry, buildServiceApp, createAddressPolicy, type Logger } from '@ocg/http';
import { createExpressAuthentication, type KeyValidator } from '@ocg/auth';
import { pingDb } from '@ocg/db';
import { pingRedis } from '@ocg/redis';
import type { HostManagerConfig } from './config';
import { RegisterRoutes } from './generated/routes';
import { authentication } from './authentication';
import { MarketsController } from './controllers/markets.controller';
import { InternalMarketsController } from './controllers/internal-markets.controller';
import { InternalNodesController } from './controllers/internal-nodes.controller';
import { NodesController } from './controllers/nodes.controller';
import { HeartbeatsController } from './controllers/heartbeats.controller';
import { BenchmarksController } from './controllers/benchmarks.controller';
import { BenchmarkTemplatesController } from './controllers/benchmark-templates.controller';
import { MarketService } from './services/market.service';
import { NodeService } from './services/node.service';
import { NodeControlService } from './services/node-control.service';
import { DeploymentManagerClient } from './services/node-jobs.client';
import { NodePresence } from './services/presence';
import { BenchmarkService } from './services/benchmark.service';
import { BenchmarkStore } from './services/benchmark-store';
import { TemplateApplyService } from './services/template-apply.service';

export type HostManagerSettings = Pick<
  HostManagerConfig,
  'INTERNAL_TOKEN' | 'DEPLOYMENT_MANAGER_URL' | 'DEPLOYMENT_MANAGER_TIMEOUT_MS' | 'NODE_PRESENCE_TTL_SECONDS' | 'NODE_LAST_SEEN_WRITE_SECONDS' | 'NODE_SIGNATURE_MAX_AGE_SECONDS' | 'BENCHMARK_APPLY_LOCK_TIMEOUT_MS'
> &
  Partial<Pick<HostManagerConfig, 'ALLOW_PRIVATE_INGRESS' | 'INGRESS_ALLOW_CIDRS'>>;

export interface HostManagerDeps {
  logger: Logger;
  db: DataSource;
  redis: Redis;
  /** Answers for API keys: client-manager in production (remoteKeyValidator). */
  keys: KeyValidator;
  settings: HostManagerSettings;
}

/** The composition of host-manager's objects; main.ts and tests both call it. */
export function buildApp({ logger, db, redis, keys, settings }: HostManagerDeps): express.Express {
  authentication.use(createExpressAuthentication({ keys, internalToken: settings.INTERNAL_TOKEN, nodeSignatureMaxAgeSeconds: settings.NODE_SIGNATURE_MAX_AGE_SECONDS }));
  const markets = new MarketService(db);
  const presence = new NodePresence(redis, settings.NODE_PRESENCE_TTL_SECONDS, settings.NODE_LAST_SEEN_WRITE_SECONDS, logger);
  const ingressPolicy = createAddressPolicy({ allowPrivate: settings.ALLOW_PRIVATE_INGRESS, allowCidrs: settings.INGRESS_ALLOW_CIDRS });
  const nodes = new NodeService(db, markets, presence, ingressPolicy);
  const deploymentManager = new DeploymentManagerClient(settings.DEPLOYMENT_MANAGER_URL, settings.INTERNAL_TOKEN, settings.DEPLOYMENT_MANAGER_TIMEOUT_MS);
  const control = new NodeControlService(db, presence, deploymentManager);
  const controllers = new ControllerRegistry()
    .register(MarketsController, new MarketsController(markets, control))
    .register(InternalMarketsController, new InternalMarketsController(markets, nodes))
    .register(InternalNodesController, new InternalNodesController(nodes))
    .register(NodesController, new NodesController(nodes, control))
    .register(HeartbeatsController, new HeartbeatsController(nodes))
    .register(BenchmarksController, new BenchmarksController(new BenchmarkService(db)))
    .register(BenchmarkTemplatesController, new BenchmarkTemplatesController(new TemplateApplyService(db, new BenchmarkStore(), settings.BENCHMARK_APPLY_LOCK_TIMEOUT_MS)));
  return buildServiceApp({
    service: 'host-manager',
    logger,
    controllers,
    checks: { postgres: () => pingDb(db), redis: () => pingRedis(redis) },
    register: RegisterRoutes,
  });
}
