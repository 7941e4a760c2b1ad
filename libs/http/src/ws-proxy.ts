import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { tlsServername } from './forward';
import { writeAtOnce } from './write-batch';

/**
 * WebSocket proxying over node's own HTTP client (ADR 0013; http-proxy did it
 * until ADR 0091), with every failure mode of an upgrade handled in one place.
 * The HTTP server's 'upgrade' event leaves these to the caller, and each one
 * ended the process or leaked a socket:
 * - the client socket has no 'error' listener, so a client that resets during
 *   the lookup, while the upstream has not answered, or while a refusal is
 *   written, throws ECONNRESET / EPIPE;
 * - a client that goes away before the upstream answers leaves the upstream
 *   request open (and, once upgraded, an upstream socket nobody reads); as
 *   nothing reads the client socket meanwhile, its reset is not even seen
 *   (often it arrives as the end of its readable side, which the HTTP
 *   server read already: half-closed, never closed);
 * - an upstream that refuses the upgrade (any status but 101) would keep its
 *   socket, half used, in the agent's pool, and the client's connection,
 *   ended after the answer, would stay half-closed while the client keeps it;
 * - `x-forwarded-*` are the caller's to set, never appended to the client's.
 */

/** Call first, for every upgrade: from then on a reset client socket is only a closed one. */
export function guardUpgradeSocket(socket: Duplex): void {
  if (socket.listenerCount('error') === 0) socket.on('error', () => socket.destroy());
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 502: 'Bad Gateway', 503: 'Service Unavailable' };

/** Answers an upgrade with a bare status (no handshake) and closes the connection; safe on a socket already reset. */
export function refuseUpgrade(socket: Duplex, status: number, headers: Record<string, string> = {}): void {
  guardUpgradeSocket(socket);
  if (socket.destroyed || !socket.writable || socket.readableEnded) return void socket.destroy();
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`);
  closeSoon(socket);
}

/** After an answer that ends the connection: a peer that never reads or never closes would keep a half-closed socket forever. */
function closeSoon(socket: Duplex): void {
  const timer = setTimeout(() => socket.destroy(), 5000);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

export interface WsTarget {
  /** ws(s):// or http(s):// base of the upstream. */
  url: string;
  agent?: http.Agent | https.Agent;
  /** Headers to set on the upstream request, replacing the client's (x-forwarded-*, x-request-id). */
  headers?: Record<string, string>;
}

export interface WsProxy {
  /** Proxies one upgrade; `onFailure` hears an upstream that could not be reached (the client socket is closed then). */
  proxy(req: http.IncomingMessage, socket: Duplex, head: Buffer, target: WsTarget, onFailure?: (err: Error) => void): void;
  close(): void;
}

const MAX_EARLY_BYTES = 64 * 1024;

/** A head as it goes to the client: the status line, then each header line as the upstream sent it. */
function headOf(status: string, rawHeaders: string[]): string {
  let head = `${status}\r\n`;
  for (let i = 0; i < rawHeaders.length; i += 2) head += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  return `${head}\r\n`;
}

/** Both sockets of an upgraded connection as they come, with their options for a long-lived stream. */
function tuned(socket: Duplex): void {
  const tcp = socket as Duplex & { setTimeout?(ms: number): void; setNoDelay?(on: boolean): void; setKeepAlive?(on: boolean, delay: number): void };
  tcp.setTimeout?.(0);
  tcp.setNoDelay?.(true);
  tcp.setKeepAlive?.(true, 0);
}

/** The upstream's path for a request: the target URL's path, then the request's own (as `forward` joins them). */
function pathOf(target: URL, requestUrl: string | undefined): string {
  const base = target.pathname.replace(/\/$/, '');
  const own = requestUrl ?? '/';
  return base + (own.startsWith('/') ? own : `/${own}`);
}

export function createWsProxy(): WsProxy {
  return {
    proxy(req, socket, head, target, onFailure) {
      guardUpgradeSocket(socket);
      // Gone already (a WebSocket client never half-closes before the handshake).
      if (socket.destroyed || socket.readableEnded) return void socket.destroy();
      const url = new URL(target.url);
      const secure = url.protocol === 'wss:' || url.protocol === 'https:';
      const headers: http.OutgoingHttpHeaders = { ...req.headers, ...target.headers };
      const options: https.RequestOptions = {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: Number(url.port) || (secure ? 443 : 80),
        method: req.method,
        path: pathOf(url, req.url),
        headers,
        agent: target.agent ?? false,
        // The target's certificate is checked against the target's name, never the client's Host ('' for an address: no SNI).
        ...(secure ? { servername: tlsServername(url), rejectUnauthorized: true } : {}),
      };
      const upstreamReq = secure ? https.request(options) : http.request(options);
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        socket.destroy();
        onFailure?.(err);
      };
      // Ties the upstream request to its client: a client gone before the answer takes the request with it.
      const abandon = () => {
        settled = true;
        upstreamReq.destroy();
      };
      socket.once('close', abandon);
      // Read the client while the upstream decides, so a reset is noticed; a client sends nothing before
      // the 101, but whatever it does send is kept for the upstream.
      const early: Buffer[] = head.length > 0 ? [head] : [];
      let earlyBytes = head.length;
      const collect = (chunk: Buffer) => {
        early.push(chunk);
        earlyBytes += chunk.length;
        if (earlyBytes > MAX_EARLY_BYTES) socket.destroy();
      };
      socket.on('data', collect);
      // A client that half-closes before the handshake is done cannot go on: drop both sides.
      const ended = () => socket.destroy();
      socket.once('end', ended);
      upstreamReq.on('error', fail);
      upstreamReq.once('response', (res: http.IncomingMessage) => {
        // Refused upgrade: the answer goes to the client, which is then closed; the upstream socket is not
        // reused (a keep-alive agent would take it back, half used).
        settled = true;
        socket.off('close', abandon);
        const upstream = res.socket;
        res.once('end', () => {
          upstream?.destroy();
          closeSoon(socket);
        });
        res.once('error', () => socket.destroy());
        socket.once('close', () => res.destroy());
        if (socket.destroyed || !socket.writable) return void res.destroy();
        socket.write(headOf(`HTTP/${res.httpVersion} ${res.statusCode} ${res.statusMessage}`, res.rawHeaders));
        res.pipe(socket);
      });
      upstreamReq.once('upgrade', (res: http.IncomingMessage, upstream: Duplex, upstreamHead: Buffer) => {
        settled = true;
        socket.off('data', collect);
        socket.off('end', ended);
        socket.off('close', abandon);
        upstream.on('error', () => upstream.destroy());
        upstream.once('close', () => socket.destroy());
        socket.once('close', () => upstream.destroy());
        if (socket.destroyed) return void upstream.destroy();
        // The client's end follows the upstream's close at once (above): its writes must not wait for the end of the phase.
        writeAtOnce(socket);
        tuned(socket);
        tuned(upstream);
        if (upstreamHead.length > 0) upstream.unshift(upstreamHead);
        socket.write(headOf('HTTP/1.1 101 Switching Protocols', res.rawHeaders));
        if (early.length > 0) upstream.write(Buffer.concat(early));
        upstream.pipe(socket).pipe(upstream);
      });
      upstreamReq.end();
    },
    // Nothing to release: each upstream request and socket lives and dies with its client's socket.
    close: () => undefined,
  };
}
