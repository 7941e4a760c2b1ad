import type express from 'express';
import type { Logger } from 'pino';
import { openApiDocument } from '@ocg/api-spec';
import { createApp } from './app';
import { healthRoutes } from './health';
import { installErrorHandling } from './errors';
import type { ControllerRegistry } from './ioc';
import type { Tracing } from './tracing';
import type { Metrics } from './metrics';

export interface ServiceAppOptions {
  service: string;
  logger: Logger;
  /** Readiness checks by dependency name (e.g. postgres, redis). */
  checks: Record<string, () => Promise<void>>;
  /** The app's controller instances, read by tsoa's iocModule (iocContainer) at request time. */
  controllers: ControllerRegistry;
  /** Registers the service's routes (tsoa's RegisterRoutes). */
  register(app: express.Express): void;
  bodyLimit?: number;
  /** The service's tracer (runService makes it from the OTEL_* settings). */
  tracing?: Tracing;
  /** Request durations are observed here (main makes it when METRICS_PORT is set). */
  metrics?: Metrics;
}

/** Every service's app in the same order: wire formats, health, routes, errors. */
export function buildServiceApp({ service, logger, checks, controllers, register, bodyLimit, tracing, metrics }: ServiceAppOptions): express.Express {
  const app = createApp({ service, logger, bodyLimit, tracing, metrics, contract: { document: openApiDocument as Record<string, unknown>, service } });
  app.locals.controllers = controllers;
  app.use(healthRoutes(checks));
  register(app);
  installErrorHandling(app, logger);
  return app;
}
