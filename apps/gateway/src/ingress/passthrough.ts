import net, { type BlockList } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { inList, proxyV2Header } from '@ocg/http';
import type { IngressTarget } from './resolver';

/** What a node ingress answers a probe with when it believes this gateway's PROXY v2 headers (apps/node-agent/src/ingress/piped.ts). */
const PROBE_HEADER = 'x-ocg-internal-ingress-probe';
const PROXY_PROTOCOL_HEADER = 'x-ocg-proxy-protocol';
/** How long a probe's answer is used. */
const PROBE_TTL_MS = 60_000;
const PROBE_TIMEOUT_MS = 5000;

export interface PassthroughOptions {
  /** The route of a TLS server name that is a job host, known at once (no lookup), or undefined. */
  route(servername: string): IngressTarget | undefined;
  /** The node ingress URL of a route, parsed and allowed by the address policy; undefined when refused. */
  url(ingressUrl: string): URL | undefined;
  /** Keep-alive connections to node ingresses (the probes go over them). */
  dispatcher: Dispatcher;
  /** Resolves node ingress host names within the address policy. */
  lookup: net.LookupFunction;
  /** Peers whose clients are named in X-Forwarded-For: their connections take the HTTP path, which reads it. */
  trustedProxies: BlockList;
  logger: Logger;
}

export interface Passthrough {
  /**
   * A TLS connection after its handshake: piped to the node ingress of the
   * running job its server name routes to, when that node believes this
   * gateway's PROXY headers; anything else goes to `http` (the HTTPS server).
   */
  take(socket: TLSSocket, http: () => void): void;
  /** A job's route changed: its piped connections are closed (clients connect again and are routed anew). */
  routeChanged(job: string): void;
  close(): void;
}

/**
 * The connection-level fast path of the job ingress (ADR 0072,
 * INGRESS_PASSTHROUGH): the gateway terminates TLS and pipes the bytes to the
 * node ingress behind a PROXY v2 header (client address, server name), so it
 * does no per-request HTTP work; the node ingress does it all (and answers
 * 421 to a Host other than the server name).
 */
export function createPassthrough(opts: PassthroughOptions): Passthrough {
  const probes = new LRUCache<string, { believed: boolean; at: number }>({ max: 10_000 });
  const probing = new Set<string>();
  const piped = new Map<string, Set<net.Socket>>();
  // Closed (shutting down): handshakes finishing meanwhile go to the HTTP server, which drains its connections.
  let closed = false;

  const probe = (url: URL): void => {
    const origin = url.origin;
    if (probing.has(origin)) return;
    probing.add(origin);
    opts.dispatcher
      .request({ origin, path: '/', method: 'GET', headers: { [PROBE_HEADER]: 'proxy-protocol' }, headersTimeout: PROBE_TIMEOUT_MS, bodyTimeout: PROBE_TIMEOUT_MS })
      .then(
        async (res) => {
          await res.body.dump();
          const believed = res.statusCode === 204 && res.headers[PROXY_PROTOCOL_HEADER] === 'v2';
          probes.set(origin, { believed, at: Date.now() });
          opts.logger.info({ ingress: origin, believed }, believed ? 'node ingress takes piped connections' : 'node ingress takes HTTP only');
        },
        () => probes.set(origin, { believed: false, at: Date.now() }),
      )
      .finally(() => probing.delete(origin));
  };

  /** True when the node at `url` believes our PROXY headers, as a probe said within PROBE_TTL_MS (else one is started). */
  const believed = (url: URL): boolean => {
    const known = probes.get(url.origin);
    if (!known || Date.now() - known.at >= PROBE_TTL_MS) probe(url);
    return known?.believed === true;
  };

  const track = (job: string, socket: net.Socket) => {
    let set = piped.get(job);
    if (!set) piped.set(job, (set = new Set()));
    set.add(socket);
    socket.once('close', () => {
      set.delete(socket);
      if (set.size === 0 && piped.get(job) === set) piped.delete(job);
    });
  };

  const pipe = (socket: TLSSocket, servername: string, job: string, url: URL, http: () => void): void => {
    const upstream = net.connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80), lookup: opts.lookup });
    upstream.setNoDelay(true);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      if (socket.destroyed) return void upstream.destroy();
      if (closed) {
        upstream.destroy();
        return http();
      }
      upstream.once('close', () => socket.destroy());
      track(job, socket);
      track(job, upstream);
      upstream.write(
        proxyV2Header({ address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 }, { address: socket.localAddress ?? '', port: socket.localPort ?? 0 }, servername),
      );
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    upstream.on('error', (err) => {
      if (connected) return;
      // Nothing was read from the client yet: the HTTP path serves it, and answers for an unreachable node.
      opts.logger.debug({ err: err.message, ingress: url.origin }, 'piping to node ingress failed; HTTP path');
      probes.delete(url.origin);
      http();
    });
    socket.once('close', () => upstream.destroy());
    socket.on('error', () => upstream.destroy());
  };

  return {
    take(socket, http) {
      const servername = typeof socket.servername === 'string' ? socket.servername.toLowerCase() : '';
      const target = servername && !inList(opts.trustedProxies, socket.remoteAddress ?? '') ? opts.route(servername) : undefined;
      const url = target?.kind === 'job' ? opts.url(target.ingressUrl) : undefined;
      if (closed || target?.kind !== 'job' || url?.protocol !== 'http:' || !believed(url)) return http();
      pipe(socket, servername, target.job.toLowerCase(), url, http);
    },
    routeChanged(job) {
      for (const socket of piped.get(job.toLowerCase()) ?? []) socket.destroy();
    },
    close() {
      closed = true;
      for (const set of piped.values()) for (const socket of set) socket.destroy();
      piped.clear();
    },
  };
}

/**
 * Puts `passthrough` in front of an HTTPS server's own handling of each TLS
 * connection after its handshake.
 */
export function installPassthrough(server: net.Server, passthrough: Passthrough): void {
  const listeners = server.listeners('secureConnection') as Array<(socket: TLSSocket) => void>;
  server.removeAllListeners('secureConnection');
  server.on('secureConnection', (socket: TLSSocket) => passthrough.take(socket, () => listeners.forEach((listener) => listener.call(server, socket))));
}
