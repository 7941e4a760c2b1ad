import { z } from 'zod';
import type { Logger } from 'pino';
import { createOtelTracing } from './otel-tracing';

/** A span being recorded (tracing on). Tracing off, none exists: only the trace id travels. */
export interface TraceSpan {
  /** `00-<trace id>-<this span>-<flags>`: what calls made inside it send. */
  readonly traceparent: string;
  readonly traceId: string;
  /** A span inside this one, in this process. */
  child(name: string, kind: 'client' | 'internal', attributes?: Record<string, string | number>): TraceSpan;
  setAttributes(attributes: Record<string, string | number>): void;
  /** Ends it; a failure marks it as an error with the failure's message. */
  end(failure?: string): void;
  /** Ends a server span, named and marked by the answer (5xx: error). */
  endServer(name: string, status: number, attributes?: Record<string, string | number>): void;
}

/** The parent of a server span: the caller's `traceparent`, already validated. */
export interface RemoteParent {
  traceId: string;
  spanId: string;
  flags: number;
}

/** One process's (one service's) tracer. */
export interface Tracing {
  /** False: no SDK object exists; requests carry the trace id only (logs and the next hop). */
  readonly recording: boolean;
  /** A server span, child of the caller's span or the root of a new trace. */
  startServer(name: string, parent: RemoteParent | undefined, attributes?: Record<string, string | number>): TraceSpan | undefined;
  /** A span starting a trace of its own (a call made outside any request: timers, the node agent's loops). */
  startRoot(name: string, kind: 'client' | 'internal', attributes?: Record<string, string | number>): TraceSpan | undefined;
  /** Exports what is queued and stops (at shutdown). */
  shutdown(): Promise<void>;
}

export const NO_TRACING: Tracing = {
  recording: false,
  startServer: () => undefined,
  startRoot: () => undefined,
  shutdown: () => Promise.resolve(),
};

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

const optionalText = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v));
const optionalUrl = () =>
  z
    .url()
    .optional()
    .or(z.literal('').transform(() => undefined));

/**
 * The standard OpenTelemetry variables a service reads (the SDK's own names),
 * except that traces are off unless OTEL_TRACES_EXPORTER says otherwise.
 */
export const tracingConfigShape = {
  /** `otlp` (OTLP/HTTP with JSON), `console` (stdout), `none` (default: off). */
  OTEL_TRACES_EXPORTER: z.enum(['none', 'otlp', 'console']).default('none'),
  /** `true` turns tracing off whatever the exporter says. */
  OTEL_SDK_DISABLED: z
    .enum(['true', 'false', ''])
    .default('false')
    .transform((v) => v === 'true'),
  /** Base URL of the collector; `/v1/traces` is appended. Default http://localhost:4318. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(),
  /** The traces URL itself, used as given (wins over OTEL_EXPORTER_OTLP_ENDPOINT). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl(),
  /** `key=value,key2=value2` sent with every export (a collector's credential). */
  OTEL_EXPORTER_OTLP_HEADERS: optionalText(),
  /** Default: the service's name. */
  OTEL_SERVICE_NAME: optionalText(),
  /** `key=value,...` added to the resource (e.g. `deployment.environment=staging`). */
  OTEL_RESOURCE_ATTRIBUTES: optionalText(),
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS).default('parentbased_always_on'),
  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number()
    .min(0)
    .max(1)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Milliseconds between two exports. */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().positive().default(5000),
  /** Spans kept for export; past it new ones are dropped. */
  OTEL_BSP_MAX_QUEUE_SIZE: z.coerce.number().int().positive().default(2048),
};

export type TracingSettings = z.infer<z.ZodObject<typeof tracingConfigShape>>;

export interface TracingOptions {
  /** `service.name` unless OTEL_SERVICE_NAME names another. */
  service: string;
  settings: TracingSettings;
  logger: Logger;
  /**
   * The public edge (the gateway): a caller's `traceparent` is continued
   * (same trace id, the caller's span as parent) but its sampled flag decides
   * nothing: the configured sampler does, as for a new trace.
   */
  edge?: boolean;
}

/** The tracer the settings ask for: none (the default, nothing loaded per request) or OpenTelemetry's SDK. */
export function createTracing(opts: TracingOptions): Tracing {
  const { settings } = opts;
  if (settings.OTEL_SDK_DISABLED || settings.OTEL_TRACES_EXPORTER === 'none') return NO_TRACING;
  return createOtelTracing(opts);
}
