import type { Express } from 'express';
import type Docker from 'dockerode';
import type { Logger } from 'pino';
import { nodeOpenApiDocument } from '@ocg/api-spec';
import { contractValidation, createApp, healthRoutes, installErrorHandling, type Metrics, type Tracing } from '@ocg/http';
import type { Executor } from '../executor/executor';
import type { FollowSettings } from './log-follow';
import { nodeApiRoutes } from './routes';

export interface NodeApiOptions {
  executor: Executor;
  docker: Docker;
  logger: Logger;
  /** This node's address: node API headers must name it. */
  node: string;
  authMaxAgeSeconds: number;
  logFollow: FollowSettings;
  tracing?: Tracing;
  /** Request durations are observed here when the agent serves metrics. */
  metrics?: Metrics;
}

/** Not ready while ended jobs left objects in the engine (their removal is retried meanwhile). */
function assertClean(executor: Executor): void {
  const { jobs, objects } = executor.leftovers();
  if (objects > 0) throw new Error(`${objects} containers, networks or volumes of ${jobs} ended jobs are still in the engine; removal is being retried`);
}

/**
 * The node API: requests and answers held to its document
 * (libs/api-spec/node-openapi.json), health, then the job routes, then the one error shape.
 */
export function buildNodeApi(opts: NodeApiOptions): Express {
  const document = nodeOpenApiDocument as Record<string, unknown>;
  const app = createApp({ service: 'node-agent', logger: opts.logger, tracing: opts.tracing, metrics: opts.metrics, contract: { document, service: 'node-agent' } });
  app.use(contractValidation({ document }));
  app.use(healthRoutes({ docker: async () => void (await opts.docker.ping()), cleanup: async () => assertClean(opts.executor) }));
  app.use(nodeApiRoutes(opts.executor, opts.node, opts.authMaxAgeSeconds, opts.logFollow));
  installErrorHandling(app, opts.logger);
  return app;
}
