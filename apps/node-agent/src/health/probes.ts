/** One attempt of each kind of check against a container address. Never throws: false means failed. */
import http from 'node:http';
import net from 'node:net';
import WebSocket from 'ws';
import type { HealthCheck, HttpHealthCheck, WebSocketHealthCheck } from '@ocg/job-definition';

export interface Target {
  host: string;
  port: number;
}

export function probe(check: HealthCheck | undefined, target: Target, timeoutMs: number): Promise<boolean> {
  if (!check) return tcpProbe(target, timeoutMs);
  return check.type === 'http' ? httpProbe(check, target, timeoutMs) : wsProbe(check, target, timeoutMs);
}

/** A port without checks is ready once it accepts a TCP connection. */
export function tcpProbe(target: Target, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.host, port: target.port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Passes when the answer's status is `expected_status`; the body is read and dropped. */
export function httpProbe(check: HttpHealthCheck, target: Target, timeoutMs: number): Promise<boolean> {
  const { body, contentType } = encodeBody(check.body);
  const headers: Record<string, string> = { host: `${target.host}:${target.port}`, ...(check.headers ?? {}) };
  if (contentType && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = contentType;
  return new Promise((resolve) => {
    const req = http.request({ host: target.host, port: target.port, method: check.method, path: check.path, headers, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode === check.expected_status));
      res.once('error', () => resolve(false));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end(body);
  });
}

/** A string body is sent as it is; anything else as JSON. */
function encodeBody(body: unknown): { body?: string; contentType?: string } {
  if (body === undefined || body === null) return {};
  if (typeof body === 'string') return { body };
  return { body: JSON.stringify(body), contentType: 'application/json' };
}

/** Passes when the first message the server sends after the handshake equals `expected_response`. */
export function wsProbe(check: WebSocketHealthCheck, target: Target, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${target.host}:${target.port}/`, { handshakeTimeout: timeoutMs });
    const timer = setTimeout(() => done(false), timeoutMs);
    function done(ok: boolean): void {
      clearTimeout(timer);
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      resolve(ok);
    }
    ws.once('message', (data) => done(String(data) === check.expected_response));
    ws.once('error', () => done(false));
    ws.once('close', () => done(false));
  });
}
