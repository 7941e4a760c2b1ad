import type http from 'node:http';
import net from 'node:net';
import { Agent, buildConnector, Pool, type Dispatcher } from 'undici';
import { TRACEPARENT_HEADER } from './trace-context';

/** Headers that describe one connection, never forwarded (RFC 9110 section 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection']);

/** The internal service credential: services trust it, so a proxy never passes it on from a caller. */
export const INTERNAL_HEADER_PREFIX = 'x-ocg-internal';

export interface ForwardTarget {
  url: URL;
  /** Keep-alive connections to the target (`upstreamPool`, `upstreamAgent`). */
  dispatcher: Dispatcher;
  /** Keep the caller's Host (the node's ingress routes by it); otherwise the target's. */
  preserveHost?: boolean;
  /**
   * The `x-forwarded-*` values to send, replacing whatever the caller sent (the
   * edge sets them: see `forwardedOf`). Absent: the caller's are kept and its
   * address is appended to `x-forwarded-for` (a hop behind a trusted edge).
   */
  forwarded?: Forwarded;
  /**
   * The edge's own `traceparent` for the answer, replacing the target's (and
   * set before `onFailure` answers): the same as setting it on `res`
   * beforehand, without node's merge of the answer's headers into `res`'s.
   */
  traceparent?: string;
  /**
   * A body of a declared length up to this many bytes is read whole before
   * the request is sent, and sent as one buffer (default 0: every body is
   * streamed as it arrives). Streaming a body costs undici's stream writer
   * and listeners on the caller's request and the upstream socket; on the
   * gateway's API path those kept each request's headers and answer alive
   * past young-generation collections (ADR 0083).
   */
  wholeBodyLimit?: number;
}

export interface Forwarded {
  for: string;
  host: string;
  proto: string;
}

/** Client-sent claims about earlier hops, dropped when the edge states its own (`ForwardTarget.forwarded`). */
export const FORWARDING_CLAIMS = new Set(['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip']);

/**
 * The request's headers as a flat name/value list. Besides the hop-by-hop ones,
 * `expect` is dropped: the server answered `100 Continue` already, and the
 * body follows it.
 */
function forwardHeaders(req: http.IncomingMessage, requestId: string, target: ForwardTarget): string[] {
  const out: string[] = [];
  const { headers } = req;
  const forwarded = target.forwarded;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'expect' || name === 'host' || name.startsWith(INTERNAL_HEADER_PREFIX)) continue;
    if (requestId && name === 'x-request-id') continue;
    if (forwarded ? FORWARDING_CLAIMS.has(name) : name === 'x-forwarded-for') continue;
    if (typeof value === 'string') out.push(name, value);
    else for (const v of value) out.push(name, v);
  }
  if (forwarded) {
    out.push('x-forwarded-for', forwarded.for, 'x-forwarded-host', forwarded.host, 'x-forwarded-proto', forwarded.proto);
  } else {
    const remote = req.socket.remoteAddress ?? '';
    const prior = headers['x-forwarded-for'];
    out.push('x-forwarded-for', prior ? `${String(prior)}, ${remote}` : remote);
    if (headers['x-forwarded-host'] === undefined) out.push('x-forwarded-host', headers.host ?? '');
    if (headers['x-forwarded-proto'] === undefined) out.push('x-forwarded-proto', 'encrypted' in req.socket ? 'https' : 'http');
  }
  if (requestId) out.push('x-request-id', requestId);
  out.push('host', target.preserveHost ? (headers.host ?? target.url.host) : target.url.host);
  return out;
}

/** The answer's headers for the caller: without the hop-by-hop ones, with the request id; the edge's own trace context (set on `res`) rather than the target's. */
function answerHeaders(incoming: http.IncomingHttpHeaders, requestId: string, res: http.ServerResponse, traceparent: string | undefined): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  const ownTrace = traceparent !== undefined || res.hasHeader(TRACEPARENT_HEADER);
  for (const name in incoming) {
    const value = incoming[name];
    if (value !== undefined && !HOP_BY_HOP.has(name) && !(ownTrace && name === TRACEPARENT_HEADER)) out[name] = value;
  }
  if (traceparent !== undefined) out[TRACEPARENT_HEADER] = traceparent;
  if (requestId) out['x-request-id'] = requestId;
  return out;
}

/** The TLS name to verify for a target: its host name, or none for an IP address (verified against the IP). */
export function tlsServername(url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return net.isIP(host) ? '' : host;
}

export interface UpstreamOptions {
  /** Connections per origin (the keep-alive ones stay open for the next request). */
  connections: number;
  /** Resolves host names (e.g. `guardedLookup`, which refuses addresses a policy does not allow). */
  lookup?: net.LookupFunction;
  /** CA certificates for https:// targets. */
  ca?: string | Buffer | Array<string | Buffer>;
}

/**
 * Connects to the URL's own host: a TLS target is verified against its host
 * name (none for an IP address, which is verified against the IP), never
 * against the Host header a request carries (which the ingress keeps).
 */
function connector(opts: UpstreamOptions): buildConnector.connector {
  const connect = buildConnector({ lookup: opts.lookup, ca: opts.ca } as buildConnector.BuildOptions);
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    return connect({ ...options, servername: net.isIP(host) ? undefined : host }, callback);
  };
}

const poolOptions = (opts: UpstreamOptions): Pool.Options => ({ connections: opts.connections, connect: connector(opts) });

/** Keep-alive connections to one upstream (an API service). */
export function upstreamPool(origin: string | URL, opts: UpstreamOptions): Pool {
  return new Pool(origin, poolOptions(opts));
}

/** Keep-alive connections to any number of upstreams (node ingresses, job containers), `connections` per origin. */
export function upstreamAgent(opts: UpstreamOptions): Agent {
  return new Agent(poolOptions(opts));
}

const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UPSTREAM_TIMEOUT']);

/** A request with no body (no length, or zero, and not chunked) is sent without one. */
function hasBody(req: http.IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return length === undefined ? req.headers['transfer-encoding'] !== undefined : length !== '0';
}

/**
 * Streams the request to the target and its answer back over keep-alive
 * connections (undici: about half the work per request of node's http client
 * with an agent); `onFailure` answers when the target cannot be reached or
 * stalls past the timeout (the answer has not started then). The timeout is
 * how long the target may be silent, waiting for its answer or within it (0:
 * no limit), except within an event stream, which is quiet between events by
 * design. Used for the API services and for job hosts alike.
 */
export function forward(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  target: ForwardTarget,
  requestId: string,
  timeoutMs: number,
  onFailure: (err: NodeJS.ErrnoException, timedOut: boolean) => void,
): void {
  const exchange = new Exchange(res, requestId, timeoutMs, target.traceparent, onFailure);
  const limit = target.wholeBodyLimit ?? 0;
  const declared = limit > 0 && req.headers['transfer-encoding'] === undefined ? Number(req.headers['content-length'] ?? 0) : 0;
  if (declared > 0 && declared <= limit) new WholeBody(req, target, exchange);
  else send(req, target, exchange, hasBody(req) ? req : null);
}

/**
 * A small body read whole, then the request sent with it. A caller that
 * leaves before its body is in gets nothing sent (its answer has nowhere to
 * go); node's own limits on a request's time apply meanwhile.
 */
class WholeBody {
  private readonly chunks: Buffer[] = [];

  constructor(
    private readonly req: http.IncomingMessage,
    private readonly target: ForwardTarget,
    private readonly exchange: Exchange,
  ) {
    req.on('data', this.onData.bind(this));
    req.on('end', this.onEnd.bind(this));
    // A caller gone mid-body: the request emits 'error' and closes; nothing is sent.
    req.on('error', ignore);
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  private onEnd(): void {
    if (this.exchange.res.destroyed) return;
    send(this.req, this.target, this.exchange, this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks));
  }
}

const ignore = (): undefined => undefined;

/** Sends the request upstream with `body`, the answer to `exchange`. */
function send(req: http.IncomingMessage, target: ForwardTarget, exchange: Exchange, body: Buffer | http.IncomingMessage | null): void {
  exchange.res.on('close', exchange.callerLeft);
  // `servername` is undici's (its Request takes it) though its types leave it out.
  const options: Dispatcher.DispatchOptions & { servername: string } = {
    origin: target.url.origin,
    path: req.url ?? '/',
    method: req.method ?? 'GET',
    headers: forwardHeaders(req, exchange.requestId, target),
    body,
    headersTimeout: exchange.timeoutMs,
    bodyTimeout: 0,
    // One name per target, whatever the Host: undici opens a new TLS connection when a request's name differs.
    servername: target.url.hostname,
  };
  target.dispatcher.dispatch(options, exchange);
}

/**
 * One forwarded request, as undici's handler: its methods live on the
 * prototype, so a request costs one object and one listener (`callerLeft`)
 * rather than a closure per callback; the silence timer's and the drain's
 * callbacks are made only when a body is slow or paused.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  // The caller went away before the answer ended: the upstream request is ended with it, and that is no upstream failure.
  private callerGone = false;
  // The body's silence is timed here, not by undici: an event stream's is not limited, and a pause for a slow caller is no silence.
  private silence: NodeJS.Timeout | undefined;
  private paused = false;

  constructor(
    readonly res: http.ServerResponse,
    readonly requestId: string,
    readonly timeoutMs: number,
    private readonly traceparent: string | undefined,
    private readonly onFailure: (err: NodeJS.ErrnoException, timedOut: boolean) => void,
  ) {}

  readonly callerLeft = (): void => {
    if (this.res.writableFinished) return;
    this.callerGone = true;
    this.controller?.abort(new Error('the caller went away'));
  };

  private stalled(): void {
    if (this.paused) this.silence?.refresh();
    else this.controller?.abort(Object.assign(new Error('upstream timed out'), { code: 'UPSTREAM_TIMEOUT' }));
  }

  private resume(): void {
    this.paused = false;
    this.silence?.refresh();
    this.controller?.resume();
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.callerGone) c.abort(new Error('the caller went away'));
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // Informational answers (103 Early Hints) are not passed on, as node's client never did: the final one follows.
    if (statusCode < 200) return;
    if (this.timeoutMs > 0 && !String(headers['content-type'] ?? '').startsWith('text/event-stream')) this.silence = setTimeout(() => this.stalled(), this.timeoutMs);
    this.res.writeHead(statusCode, answerHeaders(headers as http.IncomingHttpHeaders, this.requestId, this.res, this.traceparent));
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.silence?.refresh();
    if (!this.res.write(chunk)) {
      this.paused = true;
      c.pause();
      this.res.once('drain', () => this.resume());
    }
  }

  onResponseEnd(): void {
    clearTimeout(this.silence);
    this.res.off('close', this.callerLeft);
    this.res.end();
  }

  onResponseError(_c: Dispatcher.DispatchController, err: NodeJS.ErrnoException): void {
    clearTimeout(this.silence);
    if (this.callerGone) return;
    this.res.off('close', this.callerLeft);
    if (this.res.headersSent) return void this.res.destroy();
    if (this.traceparent !== undefined) this.res.setHeader(TRACEPARENT_HEADER, this.traceparent);
    this.onFailure(err, TIMEOUTS.has(err.code ?? ''));
  }
}
