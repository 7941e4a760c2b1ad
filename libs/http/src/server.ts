import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Express } from 'express';
import { answerClientErrors } from './client-error';
import { RouteTable } from './route-table';
import { holdWrites } from './write-batch';

export interface ListenOptions {
  host: string;
  /** 0 picks a free port; read it back from {@link RunningServer.port}. */
  port: number;
  /** How long `close()` waits for in-flight requests before cutting them off. Default 10 s. */
  shutdownTimeoutMs?: number;
  /** For an express app: dispatch routes of fixed paths from a table (`RouteTable`, ADR 0089). Default true; false: every request walks express's stack. */
  routeTable?: boolean;
  /** Each connection's writes are made at the end of the event loop's I/O phase, all connections' together (`holdWrites`, ADR 0094). Default true; false: each at once. */
  holdWrites?: boolean;
  /** Serve HTTPS with this certificate chain and key (PEM) instead of plain HTTP. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Listen on this Unix socket instead of host and port (`url` is then `unix:<path>`, `port` 0). */
  path?: string;
}

export interface RunningServer {
  server: http.Server;
  /** `http://host:port`, with the port actually bound. */
  url: string;
  port: number;
  /** Graceful: stop accepting, close idle keep-alive sockets, wait for in-flight requests, then destroy. */
  close(): Promise<void>;
  /** HTTPS servers: serve this certificate chain and key to new connections (a renewal, without a restart). */
  setCertificate?(tls: { cert: string | Buffer; key: string | Buffer }): void;
}

function urlFor(host: string, port: number, secure: boolean): string {
  return `${secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Returns the graceful `close`. Node's server.close() only stops accepting; idle
 * keep-alive sockets would hold it open until their timeout, and busy ones until the
 * client hangs up, so both are handled here, with a deadline after which sockets are cut.
 */
function shutdown(server: http.Server, timeoutMs: number): () => Promise<void> {
  let closing: Promise<void> | undefined;
  const inFlight = new InFlight();
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    const entry = inFlight.add(res);
    // Requests on an already-open keep-alive socket are still served, but told to hang up.
    if (closing) res.setHeader('Connection', 'close');
    res.on('close', () => {
      inFlight.remove(entry);
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  return () => {
    closing ??= new Promise<void>((resolve) => {
      const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
      server.close(() => {
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
      // Busy sockets: their answer says the connection ends, so clients do not reuse it.
      for (let entry = inFlight.first; entry; entry = entry.next) if (!entry.res.headersSent) entry.res.setHeader('Connection', 'close');
    });
    return closing;
  };
}

interface InFlightEntry {
  res: http.ServerResponse;
  prev: InFlightEntry | undefined;
  next: InFlightEntry | undefined;
}

/**
 * The responses in flight, as a list whose removed entries keep no link to
 * the others. With a `Set` (an entry added and deleted per request) the
 * gateway's requests outlived its young-generation collections under load
 * until a full one (ADR 0083: likely the tables a `Set` leaves behind when it
 * rebuilds, which keep pointing at their successor and their entries).
 */
class InFlight {
  first: InFlightEntry | undefined;

  add(res: http.ServerResponse): InFlightEntry {
    const entry: InFlightEntry = { res, prev: undefined, next: this.first };
    if (this.first) this.first.prev = entry;
    this.first = entry;
    return entry;
  }

  remove(entry: InFlightEntry): void {
    if (entry.prev) entry.prev.next = entry.next;
    else if (this.first === entry) this.first = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    entry.prev = undefined;
    entry.next = undefined;
  }
}

type MessageClasses = Pick<http.ServerOptions, 'IncomingMessage' | 'ServerResponse'>;

/**
 * For an express app: request and response classes whose prototypes are the
 * app's own (`app.request`, `app.response`), so each request is made with the
 * prototype express gives it. express's first layer sets them on every
 * request (`Object.setPrototypeOf` on the request and the response), which
 * V8 pays as a new shape for each object (about a tenth of a small request's
 * work); with these the prototype is already the one it sets, and nothing
 * changes. Anything else is served with node's own classes.
 */
function messageClassesOf(app: Express | http.RequestListener): MessageClasses {
  const { request, response } = app as Partial<Pick<Express, 'request' | 'response'>>;
  if (!(request instanceof http.IncomingMessage) || !(response instanceof http.ServerResponse)) return {};
  // node's own constructors make the objects (their shapes, sized as node's), only the prototype is the app's.
  function AppRequest(socket: Socket): http.IncomingMessage {
    return Reflect.construct(http.IncomingMessage, [socket], AppRequest) as http.IncomingMessage;
  }
  function AppResponse(req: http.IncomingMessage, options?: unknown): http.ServerResponse {
    return Reflect.construct(http.ServerResponse, [req, options], AppResponse) as http.ServerResponse;
  }
  AppRequest.prototype = request;
  AppResponse.prototype = response;
  return { IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage, ServerResponse: AppResponse as unknown as typeof http.ServerResponse };
}

/** Starts an HTTP server and resolves once it is listening. */
// The first overload lets inline handlers get their parameter types.
export function listen(app: http.RequestListener, opts: ListenOptions): Promise<RunningServer>;
export function listen(app: Express | http.RequestListener, opts: ListenOptions): Promise<RunningServer>;
export function listen(app: Express | http.RequestListener, opts: ListenOptions): Promise<RunningServer> {
  // https.Server has the same connection-management API; one type keeps callers simple.
  const classes = messageClassesOf(app);
  const listener = classes.IncomingMessage && opts.routeTable !== false ? new RouteTable(app as Express).listener : (app as http.RequestListener);
  const server = (opts.tls ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key, ...classes }) : http.createServer(classes)) as http.Server;
  // Registered before the app so the shutdown hook sees each response first.
  const close = shutdown(server, opts.shutdownTimeoutMs ?? 10_000);
  server.on('request', listener);
  if (opts.holdWrites !== false) server.on(opts.tls ? 'secureConnection' : 'connection', holdWrites);
  answerClientErrors(server);
  const setCertificate = opts.tls ? (tls: { cert: string | Buffer; key: string | Buffer }) => (server as unknown as https.Server).setSecureContext(tls) : undefined;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      if (opts.path !== undefined) return resolve({ server, port: 0, url: `unix:${opts.path}`, close, setCertificate });
      const port = (server.address() as AddressInfo).port;
      resolve({ server, port, url: urlFor(opts.host, port, Boolean(opts.tls)), close, setCertificate });
    };
    if (opts.path !== undefined) server.listen(opts.path, listening);
    else server.listen(opts.port, opts.host, listening);
  });
}
