import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { currentCallContext, startHop, TRACEPARENT_HEADER, TRACESTATE_HEADER, type CallContext, type Hop } from './call-context';
import type { Tracing } from './tracing';
import { REQUEST_ID_HEADER } from './request-id';
import { ServiceUnavailableError } from './http-error';
import { errorFromResponse } from './service-errors';

/** The service-to-service credential's header; the gateway strips `x-ocg-internal*` from outside callers. */
export const INTERNAL_TOKEN_HEADER = 'x-ocg-internal-token';

/** The header a node agent names itself in when it signs a request (@ocg/auth's node signing). */
export const NODE_ADDRESS_HEADER = 'x-ocg-node';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Safe to send twice: the only calls retried unless the caller says otherwise. */
const IDEMPOTENT: ReadonlySet<HttpMethod> = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
/** The other side (or a proxy before it) could not answer this time; another attempt may succeed. */
const RETRY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

export interface ServiceClientOptions {
  /** Named in errors: "host-manager is unavailable; try again shortly". */
  service: string;
  baseUrl: string;
  /** Sent as {@link INTERNAL_TOKEN_HEADER} when set. */
  internalToken?: string;
  /** Budget of a whole call, retries included. Default 5000. */
  timeoutMs?: number;
  /** Further attempts of an idempotent call after a network failure or a 502/503/504. Default 2. */
  retries?: number;
  /** Ceiling of the first pause; it doubles per attempt up to `retryMaxMs` (full jitter). Default 100. */
  retryBaseMs?: number;
  /** Default 1000. */
  retryMaxMs?: number;
  /** Sent on every call (after the defaults, before the call's own). */
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  /**
   * Keep-alive connections to send the calls over (undici, e.g.
   * `upstreamPool(baseUrl, { connections })`) instead of `fetch`: the request
   * goes out in one write and the answer is read without the web streams,
   * about a third of fetch's CPU per call. Same retries, budget and answers.
   */
  dispatcher?: Dispatcher;
  /** Records the calls made outside any request (each starts a trace); inside one, the request's tracer records them. */
  tracing?: Tracing;
}

export interface ServiceRequest {
  method?: HttpMethod;
  /** Path and query on the service, e.g. `/internal/nodes/abc?limit=10`. */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** This call's budget instead of the client's. */
  timeoutMs?: number;
  /** The caller gives up (shutdown): the fetch is aborted and its error thrown as is. */
  signal?: AbortSignal;
  /** A POST that may be repeated without effect (keyed by a reference): retried like a GET. */
  idempotent?: boolean;
  /** Request id and trace to forward; by default those of the request being served (outside one, a new trace). */
  context?: CallContext;
}

export interface ServiceResponse<T> {
  status: number;
  ok: boolean;
  /** The parsed JSON; undefined when the body was empty or not JSON. */
  body: T;
  /** The raw text of the body. */
  text: string;
  headers: Headers;
}

/**
 * One client for every call one service makes to another: base URL, the
 * internal credential, request id and traceparent forwarded, a time budget
 * per call, jittered retries of idempotent calls, and the other side's error
 * shape mapped back to the typed errors (ADR 0055).
 */
export class ServiceClient {
  private readonly doFetch: typeof globalThis.fetch;

  constructor(readonly opts: ServiceClientOptions) {
    this.doFetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  get name(): string {
    return this.opts.service;
  }

  /** Any answer, whatever its status; throws a 503 naming the service when none came within the budget. */
  async request<T = unknown>(req: ServiceRequest): Promise<ServiceResponse<T>> {
    const method = req.method ?? 'GET';
    const hop = startHop(req.context ?? currentCallContext(), `${method} ${this.name}`, { 'http.request.method': method, 'peer.service': this.name }, this.opts.tracing);
    const span = hop.span;
    if (!span) return this.attempts<T>(req, method, hop);
    try {
      const res = await this.attempts<T>(req, method, hop);
      span.setAttributes({ 'http.response.status_code': res.status });
      span.end(res.status >= 400 ? `status ${res.status}` : undefined);
      return res;
    } catch (err) {
      span.end((err as Error).message);
      throw err;
    }
  }

  /** One call, retried as the method allows, within one budget. */
  private async attempts<T>(req: ServiceRequest, method: HttpMethod, hop: Hop): Promise<ServiceResponse<T>> {
    const budget = new Budget(req.timeoutMs ?? this.opts.timeoutMs ?? 5000);
    try {
      return await this.within<T>(req, method, hop, req.signal ? AbortSignal.any([budget.signal, req.signal]) : budget.signal);
    } finally {
      budget.end();
    }
  }

  /** The attempts of one call until one is answered, the budget is spent or the caller aborts. */
  private async within<T>(req: ServiceRequest, method: HttpMethod, hop: Hop, signal: AbortSignal): Promise<ServiceResponse<T>> {
    const retries = req.idempotent || IDEMPOTENT.has(method) ? (this.opts.retries ?? 2) : 0;
    const init: RequestInit = { method, headers: this.headersFor(req, hop), body: req.body === undefined ? undefined : JSON.stringify(req.body), signal };
    const url = new URL(req.path, this.opts.baseUrl);
    for (let attempt = 0; ; attempt++) {
      let res: Answer;
      try {
        res = await this.once(url, init);
      } catch (err) {
        if (req.signal?.aborted) throw err;
        if (signal.aborted || attempt >= retries) throw this.unavailable(`no answer (${(err as Error).message})`);
        await this.pause(attempt, signal);
        continue;
      }
      if (attempt < retries && RETRY_STATUSES.has(res.status)) {
        await res.discard();
        await this.pause(attempt, signal);
        if (!signal.aborted) continue;
        throw this.unavailable(`status ${res.status}`);
      }
      return res.read<T>();
    }
  }

  /** One attempt, over the dispatcher's kept connections when there is one, else fetch. */
  private async once(url: URL, init: RequestInit): Promise<Answer> {
    const dispatcher = this.opts.dispatcher;
    if (!dispatcher) return fetched(await this.doFetch(url, init));
    const { method, headers, body, signal } = init as { method: HttpMethod; headers: Record<string, string>; body: string | undefined; signal: AbortSignal };
    const res = await dispatcher.request({ origin: url.origin, path: url.pathname + url.search, method, headers, body, signal });
    return dispatched(res);
  }

  /** The parsed body of a 2xx answer; any other answer throws its typed error (4xx as sent, 5xx as a 503 naming the service). */
  async send<T = unknown>(req: ServiceRequest): Promise<T> {
    const res = await this.request<T>(req);
    if (res.ok) return res.body;
    throw errorFromResponse(this.name, res);
  }

  /** GET: the body of a 200, undefined for a 404, the typed error for anything else. */
  async find<T = unknown>(path: string, req: Omit<ServiceRequest, 'path' | 'method' | 'body'> = {}): Promise<T | undefined> {
    const res = await this.request<T>({ ...req, path });
    if (res.status === 404) return undefined;
    if (res.ok) return res.body;
    throw errorFromResponse(this.name, res);
  }

  /** For answers the caller cannot use (5xx, an unexpected status): a 503 that names the service; the detail is only logged. */
  unavailable(detail: string): ServiceUnavailableError {
    return new ServiceUnavailableError(`${this.name} is unavailable; try again shortly`, undefined, { detail: `${this.name}: ${detail}` });
  }

  private headersFor(req: ServiceRequest, hop: Hop): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (this.opts.internalToken) headers[INTERNAL_TOKEN_HEADER] = this.opts.internalToken;
    const context = req.context ?? currentCallContext();
    if (context.requestId) headers[REQUEST_ID_HEADER] = context.requestId;
    headers[TRACEPARENT_HEADER] = hop.traceparent;
    if (hop.tracestate) headers[TRACESTATE_HEADER] = hop.tracestate;
    return { ...headers, ...this.opts.headers, ...req.headers };
  }

  /** Full jitter: a random pause up to a ceiling that doubles per attempt, so callers that failed together do not return together. */
  private async pause(attempt: number, signal: AbortSignal): Promise<void> {
    const ceiling = Math.min(this.opts.retryMaxMs ?? 1000, (this.opts.retryBaseMs ?? 100) * 2 ** attempt);
    await delay(Math.random() * ceiling, undefined, { signal }).catch(() => undefined);
  }
}

/**
 * A call's time budget: aborts its signal as `AbortSignal.timeout` does (a
 * `TimeoutError`), and its timer is cleared when the call ends.
 * `AbortSignal.timeout`'s timer ran on after every call and built its error
 * 5 s later for a call long answered (ADR 0080).
 */
class Budget {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => this.controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  end(): void {
    clearTimeout(this.timer);
  }
}

/** An answer of either transport: its status, then its body read or thrown away. */
interface Answer {
  status: number;
  discard(): Promise<void>;
  read<T>(): Promise<ServiceResponse<T>>;
}

function fetched(res: Response): Answer {
  return {
    status: res.status,
    discard: () => (res.body ? res.body.cancel().catch(() => undefined) : Promise.resolve()),
    read: async <T>() => {
      const text = await res.text().catch(() => '');
      return { status: res.status, ok: res.ok, body: parse(text) as T, text, headers: res.headers };
    },
  };
}

function dispatched(res: Dispatcher.ResponseData): Answer {
  const status = res.statusCode;
  return {
    status,
    discard: () => res.body.dump().catch(() => undefined),
    read: async <T>() => new DispatchedResponse<T>(status, await res.body.text().catch(() => ''), res.headers),
  };
}

/** An answer read from a dispatcher; its headers are made into `Headers` when asked for (an error's Retry-After): most answers are read for their body alone. */
class DispatchedResponse<T> implements ServiceResponse<T> {
  readonly ok: boolean;
  readonly body: T;
  private made?: Headers;

  constructor(
    readonly status: number,
    readonly text: string,
    private readonly raw: Dispatcher.ResponseData['headers'],
  ) {
    this.ok = status >= 200 && status < 300;
    this.body = parse(text) as T;
  }

  get headers(): Headers {
    return (this.made ??= headersOf(this.raw));
  }
}

function headersOf(raw: Dispatcher.ResponseData['headers']): Headers {
  const headers = new Headers();
  for (const name in raw) {
    const value = raw[name];
    if (typeof value === 'string') headers.append(name, value);
    else if (value) for (const v of value) headers.append(name, v);
  }
  return headers;
}

function parse(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
