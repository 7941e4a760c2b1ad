import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { createLogger } from './logger';
import { listen, type RunningServer } from './server';
import { createTracing, type Tracing, type TracingSettings } from './tracing';
import { listenMetrics, Metrics } from './metrics';

/**
 * Runs `stop` once on SIGINT or SIGTERM, then exits; a second signal forces
 * the exit. Crashes are logged as one JSON line before the process dies.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, graceMs = 15000): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took too long: exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}

/** Starts a service's main function and turns a failed start into one clear line and exit code 1. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${name}: failed to start: ${message}\n`);
    if (process.env.LOG_LEVEL === 'debug' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  });
}

type ServiceBasics = { HOST: string; PORT: number; LOG_LEVEL: string; METRICS_HOST?: string; METRICS_PORT?: number } & TracingSettings;

export interface ServiceDefinition<C extends ServiceBasics> {
  name: string;
  loadConfig(): C;
  /** Builds the service's resources and its request handler (`tracing`: OTEL_* settings, off by default; `metrics` when METRICS_PORT is set). */
  start(config: C, logger: Logger, tracing: Tracing, metrics?: Metrics): Promise<{ app: RequestListener; stop(): Promise<void>; drain?(): void }>;
}

/** The service's registry and its `/metrics` listener when METRICS_PORT is set. */
export function metricsOf(name: string, config: { METRICS_PORT?: number }, logger: Logger): Metrics | undefined {
  return config.METRICS_PORT === undefined ? undefined : new Metrics(name, logger);
}

/** Starts the `/metrics` listener (logged) when there are metrics to serve. */
export async function serveMetrics(
  metrics: Metrics | undefined,
  config: { HOST: string; METRICS_HOST?: string; METRICS_PORT?: number },
  logger: Logger,
): Promise<RunningServer | undefined> {
  if (!metrics || config.METRICS_PORT === undefined) return undefined;
  const server = await listenMetrics(metrics, { host: config.METRICS_HOST ?? config.HOST, port: config.METRICS_PORT });
  logger.info({ url: `${server.url}/metrics` }, 'metrics listening');
  return server;
}

/** The shape of every service's main: parse config, start, listen, stop cleanly on a signal. */
export function runService<C extends ServiceBasics>(def: ServiceDefinition<C>): void {
  runMain(def.name, async () => {
    const config = def.loadConfig();
    const logger = createLogger({ service: def.name, level: config.LOG_LEVEL });
    const tracing = createTracing({ service: def.name, settings: config, logger });
    const metrics = metricsOf(def.name, config, logger);
    const { app, stop, drain } = await def.start(config, logger, tracing, metrics);
    const server = await listen(app, { host: config.HOST, port: config.PORT });
    logger.info({ url: server.url }, `${def.name} listening`);
    const metricsServer = await serveMetrics(metrics, config, logger);
    onShutdown(logger, async () => {
      // Long answers (event streams) end first, so closing does not wait for the shutdown deadline.
      drain?.();
      await Promise.all([server.close(), metricsServer?.close()]);
      await stop();
      await tracing.shutdown();
    });
  });
}
