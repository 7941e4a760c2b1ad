import type express from 'express';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { createExpressAuthentication, type KeyValidator } from '@ocg/auth';
import { ControllerRegistry, buildServiceApp, insufficientBalanceHandler, type Logger, type Metrics, type Tracing } from '@ocg/http';
import { pingDb } from '@ocg/db';
import { pingRedis } from '@ocg/redis';
import type { DeploymentManagerConfig } from './config';
import { RegisterRoutes } from './generated/routes';
import { requireNodePresence } from './nodes/node-presence';
import { hideContentFromAnonymous } from './cas/hide-content';
import { CasController } from './cas/cas.controller';
import { InternalJobsController } from './jobs/internal-jobs.controller';
import { InternalNodesController } from './nodes/internal-nodes.controller';
import { InternalMarketsController } from './markets/internal-markets.controller';
import { JobsController } from './jobs/jobs.controller';
import { NodeJobsController } from './jobs/node-jobs.controller';
import { composeServices, type DeploymentManagerServices } from './services';

export type DeploymentManagerSettings = Omit<DeploymentManagerConfig, 'HOST' | 'PORT' | 'DATABASE_URL' | 'REDIS_URL' | 'LOG_LEVEL' | 'METRICS_HOST' | 'METRICS_PORT'>;

export interface DeploymentManagerDeps {
  logger: Logger;
  db: DataSource;
  redis: Redis;
  /** Answers for API keys: client-manager in production (remoteKeyValidator). */
  keys: KeyValidator;
  settings: DeploymentManagerSettings;
  /** Records a span per request when OTEL_TRACES_EXPORTER is set (runService makes it). */
  tracing?: Tracing;
  /** The service's Prometheus registry (main makes it when METRICS_PORT is set). */
  metrics?: Metrics;
}

/** The composition of deployment-manager's HTTP app; main.ts and tests both call it. */
export function buildApp(deps: DeploymentManagerDeps, services: DeploymentManagerServices = composeServices(deps)): express.Express {
  const { settings: s } = deps;
  const base = createExpressAuthentication({ keys: deps.keys, internalToken: s.INTERNAL_TOKEN, nodeSignatureMaxAgeSeconds: s.NODE_SIGNATURE_MAX_AGE_SECONDS });
  const authentication = hideContentFromAnonymous(requireNodePresence(base, services.presence));
  const controllers = new ControllerRegistry()
    .register(JobsController, new JobsController(services.posts, services.query, services.control, services.eventStreams))
    .register(CasController, new CasController(services.cas, services.downloads))
    .register(NodeJobsController, new NodeJobsController(services.nodeJobs))
    .register(InternalJobsController, new InternalJobsController(services.query))
    .register(InternalMarketsController, new InternalMarketsController(services.query))
    .register(InternalNodesController, new InternalNodesController(services.nodeJobs));
  return buildServiceApp({
    service: 'deployment-manager',
    logger: deps.logger,
    tracing: deps.tracing,
    metrics: deps.metrics,
    controllers,
    checks: { postgres: () => pingDb(deps.db), redis: () => pingRedis(deps.redis) },
    bodyLimit: s.BODY_LIMIT_BYTES,
    register: (app) => {
      // Read by authentication.ts at request time.
      app.locals.authentication = authentication;
      RegisterRoutes(app);
      app.use(insufficientBalanceHandler);
    },
  });
}
