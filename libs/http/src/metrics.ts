import http from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from 'pino';
import { listen, type RunningServer } from './server';

/** Request durations, in seconds: from a cached lookup (sub-millisecond) to a long poll. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type Labels<L extends string> = Partial<Record<L, string | number>>;

/** One gauge value and its labels, as a snapshot loader returns them. */
export interface Sample<L extends string> {
  labels: Labels<L>;
  value: number;
}

/**
 * A service's Prometheus registry (one per process, made by main: two apps in
 * one test process never share series): the process's own metrics, the
 * request duration histogram that `createApp` observes, and whatever the
 * service adds with `counter`, `gauge`, `histogram` or `sampled`.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests: Histogram<'method' | 'route' | 'status'>;

  constructor(
    readonly service: string,
    readonly logger?: Logger,
  ) {
    collectDefaultMetrics({ register: this.registry });
    this.requests = this.histogram(
      'ocg_http_request_duration_seconds',
      'HTTP requests served, by method, route template and status',
      ['method', 'route', 'status'],
      REQUEST_BUCKETS,
    );
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = [], collect?: (gauge: Gauge<L>) => void | Promise<void>): Gauge<L> {
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect
        ? {
            collect: function (this: Gauge<L>) {
              return collect(this);
            },
          }
        : {}),
    });
  }

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /**
   * Gauges whose values come from one source (a query), read when Prometheus
   * scrapes, at most once per `ttlMs` however many scrapers or replicas of
   * Prometheus ask; concurrent scrapes share the read in flight. A failed
   * read leaves the gauges empty (the series go stale) and is logged.
   */
  sampled<K extends string, L extends string>(
    ttlMs: number,
    gauges: Record<K, { name: string; help: string; labelNames: readonly L[] }>,
    load: () => Promise<Record<K, Sample<L>[]>>,
  ): void {
    const read = cachedRead(ttlMs, load);
    for (const key of Object.keys(gauges) as K[]) {
      const { name, help, labelNames } = gauges[key];
      this.gauge(name, help, labelNames, async (gauge) => {
        gauge.reset();
        try {
          for (const { labels, value } of (await read())[key]) gauge.set(labels, value);
        } catch (err) {
          this.logger?.warn({ err: (err as Error).message, metric: name }, 'metric not read');
        }
      });
    }
  }

  /** The exposition text, with its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The result of `load`, read again once it is `ttlMs` old; a failed read is not kept. */
function cachedRead<T>(ttlMs: number, load: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= ttlMs) {
      const value = load();
      const entry = { at: now, value };
      last = entry;
      value.catch(() => {
        if (last === entry) last = undefined;
      });
    }
    return last.value;
  };
}

/** The route label of a request no route matched: raw paths never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The template of the express route that answered (`/jobs/:job`), never the path itself. */
export function routeOf(req: { route?: { path?: unknown }; baseUrl?: string }): string {
  const path = req.route?.path;
  return typeof path === 'string' ? (req.baseUrl ?? '') + path : UNMATCHED_ROUTE;
}

/**
 * Serves `GET /metrics` (and nothing else) on a listener of its own, so the
 * metrics are only where the operator opened METRICS_HOST:METRICS_PORT, never
 * on a service's public port.
 */
export function listenMetrics(metrics: Metrics, opts: { host: string; port: number }): Promise<RunningServer> {
  const handler: http.RequestListener = (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8' }).end(path === '/metrics' ? 'GET only\n' : 'only /metrics is served here\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body),
      (err: unknown) => {
        metrics.logger?.error({ err }, 'metrics not served');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed\n');
      },
    );
  };
  return listen(handler, { ...opts, shutdownTimeoutMs: 1000 });
}
