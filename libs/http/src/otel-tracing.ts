import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { RemoteParent, TraceSpan, Tracing, TracingOptions, TracingSettings } from './tracing';

/** `key=value,...` (values percent-decoded, as the OpenTelemetry spec has them). */
function keyValueList(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const value = pair.slice(eq + 1).trim();
    try {
      out[pair.slice(0, eq).trim()] = decodeURIComponent(value);
    } catch {
      out[pair.slice(0, eq).trim()] = value;
    }
  }
  return out;
}

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

class OtelSpan implements TraceSpan {
  private header?: string;

  constructor(
    private readonly tracer: Tracer,
    readonly span: Span,
  ) {}

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  get traceparent(): string {
    if (this.header === undefined) {
      const c = this.span.spanContext();
      this.header = `00-${c.traceId}-${c.spanId}-0${(c.traceFlags & 1).toString(16)}`;
    }
    return this.header;
  }

  child(name: string, kind: 'client' | 'internal', attributes?: Record<string, string | number>): TraceSpan {
    return new OtelSpan(this.tracer, this.tracer.startSpan(name, { kind: KINDS[kind], attributes }, trace.setSpan(ROOT_CONTEXT, this.span)));
  }

  setAttributes(attributes: Record<string, string | number>): void {
    this.span.setAttributes(attributes);
  }

  end(failure?: string): void {
    if (failure !== undefined) this.span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    this.span.end();
  }

  endServer(name: string, status: number, attributes?: Record<string, string | number>): void {
    this.span.updateName(name);
    this.span.setAttribute('http.response.status_code', status);
    if (attributes) this.span.setAttributes(attributes);
    if (status >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.end();
  }
}

function samplerOf(settings: TracingSettings, edge: boolean): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.OTEL_TRACES_SAMPLER_ARG ?? 1);
  switch (settings.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    default: {
      const root =
        settings.OTEL_TRACES_SAMPLER === 'parentbased_always_off'
          ? new AlwaysOffSampler()
          : settings.OTEL_TRACES_SAMPLER === 'parentbased_traceidratio'
            ? ratio
            : new AlwaysOnSampler();
      // At the edge the caller's sampled flag is not obeyed: an outside caller cannot make every request recorded.
      return new ParentBasedSampler(edge ? { root, remoteParentSampled: root, remoteParentNotSampled: root } : { root });
    }
  }
}

function tracesUrl(settings: TracingSettings): string {
  if (settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = settings.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/** The exporter, with failed exports logged (at most once a minute: a collector that is down must not flood the log). */
function exporterOf(opts: TracingOptions): SpanExporter {
  const { settings, logger } = opts;
  const exporter =
    settings.OTEL_TRACES_EXPORTER === 'console'
      ? new ConsoleSpanExporter()
      : new OTLPTraceExporter({ url: tracesUrl(settings), headers: keyValueList(settings.OTEL_EXPORTER_OTLP_HEADERS) });
  let warnedAt = 0;
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.error && Date.now() - warnedAt > 60_000) {
          warnedAt = Date.now();
          logger.warn({ err: result.error.message, spans: spans.length }, 'traces not exported');
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/**
 * OpenTelemetry's SDK behind `Tracing`. Spans are parented explicitly (the
 * call context carries the current one), so no global context manager,
 * propagator or provider is registered: two services in one process keep
 * their own tracers.
 */
export function createOtelTracing(opts: TracingOptions): Tracing {
  const { settings } = opts;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ ...keyValueList(settings.OTEL_RESOURCE_ATTRIBUTES), 'service.name': settings.OTEL_SERVICE_NAME ?? opts.service }),
    sampler: samplerOf(settings, opts.edge ?? false),
    spanProcessors: [
      new BatchSpanProcessor({ exporter: exporterOf(opts), scheduledDelayMillis: settings.OTEL_BSP_SCHEDULE_DELAY, maxQueueSize: settings.OTEL_BSP_MAX_QUEUE_SIZE }),
    ],
  });
  const tracer = provider.getTracer('@ocg/http');
  const start = (name: string, kind: SpanKind, parent: Context, attributes?: Record<string, string | number>) =>
    new OtelSpan(tracer, tracer.startSpan(name, { kind, attributes }, parent));
  return {
    recording: true,
    startServer(name, parent?: RemoteParent, attributes?) {
      const context = parent ? trace.setSpanContext(ROOT_CONTEXT, { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.flags & 1, isRemote: true }) : ROOT_CONTEXT;
      return start(name, SpanKind.SERVER, context, attributes);
    },
    startRoot: (name, kind, attributes) => start(name, KINDS[kind], ROOT_CONTEXT, attributes),
    // What could not be sent by now is given up on; a collector that is down must not fail the shutdown.
    shutdown: () => provider.shutdown().catch((err: Error) => opts.logger.warn({ err: err.message }, 'traces not exported at shutdown')),
  };
}
