import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';

/** W3C trace context: the header a service passes on unchanged to the services it calls. */
export const TRACEPARENT_HEADER = 'traceparent';

/** What a call to another service carries over from the request being served. */
export interface CallContext {
  requestId?: string;
  traceparent?: string;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const storage = new AsyncLocalStorage<CallContext>();

/** The context of the request this code runs for (empty outside one: timers, consumers, startup). */
export function currentCallContext(): CallContext {
  return storage.getStore() ?? {};
}

/** Runs `fn` with `context` as what calls made inside it forward (tests, workers serving a queued request). */
export function withCallContext<T>(context: CallContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * What the request passes on: its id (already chosen, see request-id.ts) and
 * its `traceparent` when well-formed. Everything the request does runs with
 * it (createApp), so service calls forward them without every caller
 * passing them down.
 */
export function callContextOf(req: IncomingMessage, requestId: string): CallContext {
  const trace = req.headers[TRACEPARENT_HEADER];
  return { requestId, traceparent: typeof trace === 'string' && TRACEPARENT.test(trace) ? trace : undefined };
}
