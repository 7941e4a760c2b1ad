import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import httpProxy from 'http-proxy';
import { tlsServername } from './forward';

/**
 * WebSocket proxying through http-proxy, with its failure modes handled in
 * one place. http-proxy 1.18 (and the HTTP server's 'upgrade' event) leave
 * these to the caller, and each one ended the process or leaked a socket:
 * - the client socket has no 'error' listener until the upstream upgraded,
 *   so a client that resets during the lookup, while the upstream has not
 *   answered, or while a refusal is written, throws ECONNRESET / EPIPE;
 * - a client that goes away before the upstream answers leaves the upstream
 *   request open (and, once upgraded, an upstream socket nobody reads); as
 *   nothing reads the client socket meanwhile, its reset is not even seen
 *   (often it arrives as the end of its readable side, which the HTTP
 *   server read already: half-closed, never closed);
 * - an upstream that refuses the upgrade (any status but 101) keeps its
 *   socket, half used, in the agent's pool, and the client's connection,
 *   ended after the answer, stays half-closed while the client keeps it;
 * - `xfwd` appends to the client's own `x-forwarded-*`: the caller sets them.
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

export function createWsProxy(): WsProxy {
  const server = httpProxy.createProxyServer({ ws: true, xfwd: false });
  // Ties each upstream request and socket to its client socket, both ways.
  server.on('proxyReqWs', (proxyReq: http.ClientRequest, _req: http.IncomingMessage, socket: Duplex) => {
    const abandon = () => proxyReq.destroy();
    socket.once('close', abandon);
    // Read the client while the upstream decides, so a reset is noticed; a client sends nothing before
    // the 101, but whatever it does send is kept for the upstream.
    const early: Buffer[] = [];
    let earlyBytes = 0;
    const collect = (chunk: Buffer) => {
      early.push(chunk);
      earlyBytes += chunk.length;
      if (earlyBytes > MAX_EARLY_BYTES) socket.destroy();
    };
    socket.on('data', collect);
    // A client that half-closes before the handshake is done cannot go on: drop both sides.
    const ended = () => socket.destroy();
    socket.once('end', ended);
    proxyReq.on('error', () => undefined);
    proxyReq.once('response', (res: http.IncomingMessage) => {
      // Refused upgrade: http-proxy pipes the answer to the client and ends it. The upstream socket is not reused
      // (by 'end' a keep-alive agent has taken it back, and res.socket is null), and the client's is closed.
      const upstream = res.socket;
      res.once('end', () => {
        upstream?.destroy();
        closeSoon(socket);
      });
      res.once('error', () => socket.destroy());
    });
    proxyReq.once('upgrade', (_res: http.IncomingMessage, upstream: Duplex) => {
      // Runs before http-proxy's own listener, which pipes the sockets (and resumes this one).
      socket.off('data', collect);
      socket.off('end', ended);
      socket.pause();
      if (early.length) socket.unshift(Buffer.concat(early));
      socket.off('close', abandon);
      upstream.on('error', () => upstream.destroy());
      upstream.once('close', () => socket.destroy());
      socket.once('close', () => upstream.destroy());
      if (socket.destroyed) upstream.destroy();
    });
  });
  // Only reached if a callback is missing; never let it throw.
  server.on('error', () => undefined);
  return {
    proxy(req, socket, head, target, onFailure) {
      guardUpgradeSocket(socket);
      // Gone already (a WebSocket client never half-closes before the handshake).
      if (socket.destroyed || socket.readableEnded) return void socket.destroy();
      for (const [name, value] of Object.entries(target.headers ?? {})) req.headers[name] = value;
      // `ssl` seeds http-proxy's outgoing options: verify the target's certificate, not the client's Host.
      const ssl = { servername: tlsServername(new URL(target.url)) };
      server.ws(req, socket, head, { target: target.url, agent: target.agent, secure: true, changeOrigin: false, ssl }, (err: Error) => {
        socket.destroy();
        onFailure?.(err);
      });
    },
    close: () => server.close(),
  };
}
