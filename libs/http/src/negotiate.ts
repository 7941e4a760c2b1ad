import type { Express, Response } from 'express';
import { encodeMultipart } from './multipart';

/** What a 2xx body can be sent as, in order of preference when the client does not care. */
export const PRODUCIBLE_TYPES = ['application/json', 'text/plain', 'multipart/form-data'];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sendText(res: Response, body: unknown): Response {
  res.type('text/plain; charset=utf-8');
  return res.send(JSON.stringify(body));
}

function sendMultipart(res: Response, obj: Record<string, unknown>): Response {
  const { contentType, body } = encodeMultipart(obj);
  res.setHeader('Content-Type', contentType);
  return res.send(body);
}

/** Accept values that choose JSON whatever we offer: no need to parse them. */
const JSON_ACCEPTS = new Set([undefined, '', '*/*', 'application/json', 'application/json, */*', 'application/json, text/plain, */*']);

/**
 * tsoa's generated routes answer with `res.status(code).json(data)`, so
 * `res.json` is the one place every success body passes through. It is
 * replaced once, on the app's response prototype (not wrapped per request).
 * Only 2xx bodies are negotiated: errors are always JSON. When `Accept` names
 * nothing we can produce we still answer JSON (lenient) rather than 406, and
 * bodies that are not objects (arrays, scalars) have no top-level members to
 * split into parts, so they go as JSON too.
 */
export function installNegotiation(app: Express): void {
  const json = app.response.json;
  app.response.json = function negotiatedJson(this: Response, body?: unknown): Response {
    const status = this.statusCode;
    if (status < 200 || status >= 300 || status === 204 || body === undefined) return json.call(this, body);
    this.vary('Accept');
    const accept = this.req.headers.accept;
    const type = JSON_ACCEPTS.has(accept) ? 'application/json' : this.req.accepts(PRODUCIBLE_TYPES);
    if (type === 'text/plain') return sendText(this, body);
    if (type === 'multipart/form-data') {
      // JSON round trip: the members the JSON answer would have (toJSON, no undefineds).
      const text = JSON.stringify(body);
      const wire: unknown = text === undefined ? undefined : JSON.parse(text);
      if (isPlainObject(wire)) return sendMultipart(this, wire);
    }
    return json.call(this, body);
  };
}
