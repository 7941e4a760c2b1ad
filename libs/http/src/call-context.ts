import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'express';
import { formatTraceparent, newTraceparent, parseTraceparent, parseTracestate, traceIdOf, TRACEPARENT_HEADER, TRACESTATE_HEADER } from './trace-context';
import type { TraceSpan, Tracing } from './tracing';

export { TRACEPARENT_HEADER, TRACESTATE_HEADER };

/** What a call to another service carries over from the request being served. */
export interface CallContext {
  requestId?: string;
  /** What calls made from here send: the current span's (tracing on), else the request's own, unchanged or new. */
  traceparent?: string;
  /** The caller's valid `tracestate`, passed on unchanged. */
  tracestate?: string;
  /** The trace id every log line of the request carries. */
  traceId?: string;
  /** The span being recorded (tracing on). */
  span?: TraceSpan;
}

const storage = new AsyncLocalStorage<CallContext>();

/** The context of the request this code runs for (empty outside one: timers, consumers, startup). */
export function currentCallContext(): CallContext {
  return storage.getStore() ?? {};
}

/** Runs `fn` with `context` as what calls made inside it forward (tests, workers serving a queued request). */
export function withCallContext<T>(context: CallContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The log fields of the current request (pino's mixin: every line carries the trace id). */
export function logContext(): { traceId?: string } {
  const traceId = storage.getStore()?.traceId;
  return traceId === undefined ? {} : { traceId };
}

/**
 * The trace a request continues: the caller's when its `traceparent` is well
 * formed (a malformed one is dropped with its `tracestate`), else a new one.
 * With a recording tracer the request gets its server span (named later, by
 * its route); without one nothing but the header's text is handled.
 */
export function openCallContext(
  headers: IncomingHttpHeaders,
  requestId: string | undefined,
  tracing: Tracing | undefined,
  name: string,
): CallContext & { traceparent: string; traceId: string } {
  const parent = parseTraceparent(headers[TRACEPARENT_HEADER]);
  const tracestate = parent ? parseTracestate(headers[TRACESTATE_HEADER]) : undefined;
  const span = tracing?.recording ? tracing.startServer(name, parent) : undefined;
  const traceparent = span?.traceparent ?? (parent ? formatTraceparent(parent) : newTraceparent());
  return { requestId, traceparent, tracestate, traceId: traceIdOf(traceparent), span };
}

/** What one call to another service (or the proxied request) sends, and its client span to end when it is answered. */
export interface Hop {
  traceparent: string;
  tracestate?: string;
  span?: TraceSpan;
}

/**
 * The trace context of a call made now: a client span inside the current
 * span (tracing on), the request's own context (tracing off), or, outside
 * any request, a new trace (a root span when `tracing` records).
 */
export function startHop(context: CallContext, name: string, attributes: Record<string, string | number>, tracing?: Tracing): Hop {
  if (context.span) {
    const span = context.span.child(name, 'client', attributes);
    return { traceparent: span.traceparent, tracestate: context.tracestate, span };
  }
  if (context.traceparent) return { traceparent: context.traceparent, tracestate: context.tracestate };
  const span = tracing?.recording ? tracing.startRoot(name, 'client', attributes) : undefined;
  return { traceparent: span?.traceparent ?? newTraceparent(), span };
}

/**
 * Puts the trace context of a proxied request in its headers (they are
 * forwarded as they are), replacing the caller's; the client span (tracing
 * on) ends when `res` closes.
 */
export function traceForwarded(req: IncomingMessage, res: ServerResponse | undefined, target: string): void {
  const hop = startHop(currentCallContext(), `${req.method ?? 'GET'} ${target}`, { 'http.request.method': req.method ?? 'GET', 'peer.service': target });
  req.headers[TRACEPARENT_HEADER] = hop.traceparent;
  if (hop.tracestate) req.headers[TRACESTATE_HEADER] = hop.tracestate;
  else delete req.headers[TRACESTATE_HEADER];
  const span = hop.span;
  if (span && res) {
    res.once('close', () => {
      span.setAttributes({ 'http.response.status_code': res.statusCode });
      span.end(res.statusCode >= 400 ? `status ${res.statusCode}` : undefined);
    });
  }
}

/**
 * Runs `fn` inside a span of its own (tracing on): where a request's time
 * goes (a job's post, a claim, a settlement). Tracing off, it only runs `fn`.
 */
export async function withSpan<T>(name: string, fn: () => Promise<T>, attributes?: Record<string, string | number>): Promise<T> {
  const context = storage.getStore();
  if (!context?.span) return fn();
  const span = context.span.child(name, 'internal', attributes);
  try {
    const result = await storage.run({ ...context, span, traceparent: span.traceparent }, fn);
    span.end();
    return result;
  } catch (err) {
    span.end(err instanceof Error ? err.message : String(err));
    throw err;
  }
}

/** The route template express matched (`POST /jobs/{job}`), or the method alone when none did. */
function routeOf(req: Request): string | undefined {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}`.replace(/:(\w+)/g, '{$1}') : undefined;
}

/** Ends the request's server span with its answer, named by the route express matched. */
export function endServerSpan(req: Request, res: ServerResponse, span: TraceSpan): void {
  res.once('close', () => {
    const route = routeOf(req);
    span.endServer(
      route ? `${req.method} ${route}` : req.method,
      res.statusCode,
      route ? { 'http.request.method': req.method, 'http.route': route } : { 'http.request.method': req.method },
    );
  });
}
