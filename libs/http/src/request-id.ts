import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'express';

export const REQUEST_ID_HEADER = 'x-request-id';

/** Ids we pass on unchanged: short, and safe in headers, logs and URLs. */
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function isSaneRequestId(value: unknown): value is string {
  return typeof value === 'string' && SANE_ID.test(value);
}

/**
 * Takes the caller's `x-request-id` when it is sane (the gateway generates one and
 * services propagate it), otherwise makes a new one. The chosen id is also written
 * back into the request headers so anything forwarding them passes the sane one on.
 */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  const id = isSaneRequestId(incoming) ? incoming : randomUUID();
  req.id = id;
  req.headers[REQUEST_ID_HEADER] = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

/** The request id as a string, or undefined before the request id middleware ran. */
export function requestIdOf(req: Request): string | undefined {
  return typeof req.id === 'string' ? req.id : undefined;
}
