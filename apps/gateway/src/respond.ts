import type http from 'node:http';
import type { ErrorBody } from '@ocg/contracts';

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: http.ServerResponse, status: number, name: string, code: string, message: string, requestId: string): void {
  const body: ErrorBody = { name, message, status, code, requestId };
  sendJson(res, status, body, { 'x-request-id': requestId });
}
