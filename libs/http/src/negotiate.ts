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

/** What express's `res.json` makes of `application/json` (its charset added by `res.set`, then again by `res.send`). */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

type Send = (this: Response, body?: unknown) => Response;

/**
 * express's `res.json` without its detours, for the usual case (express's
 * default JSON settings, no Content-Type set yet): the same header values
 * and bytes. express sets the type, then `res.send` parses it again to add
 * the charset and turns the text into a Buffer for the ETag; here the text
 * becomes a Buffer once and the type is set as it ends up.
 */
function sendJson(res: Response, json: Send, body: unknown): Response {
  const settings = res.app.settings as Record<string, unknown>;
  if (settings['json replacer'] !== undefined || settings['json spaces'] !== undefined || settings['json escape'] !== undefined || res.getHeader('Content-Type') !== undefined) {
    return json.call(res, body);
  }
  const text = JSON.stringify(body) as string | undefined;
  if (text === undefined) return json.call(res, body);
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  return sendBytes(res, Buffer.from(text), settings['etag fn']);
}

type EtagOf = (body: Buffer) => string | undefined;

/**
 * What express's `res.send` does with a Buffer whose Content-Type is set,
 * except that only a GET or HEAD answer gets an ETag: a conditional request
 * can revalidate nothing else, and hashing every POST's answer was work for
 * no reader. Then the same: a fresh GET answers 304, and 204, 205, 304 and
 * HEAD answers carry no body.
 */
function sendBytes(res: Response, bytes: Buffer, etagOf: unknown): Response {
  const req = res.req;
  const method = req.method;
  res.setHeader('Content-Length', bytes.length);
  if (method === 'GET' || method === 'HEAD') {
    if (typeof etagOf === 'function' && res.getHeader('ETag') === undefined) {
      const etag = (etagOf as EtagOf)(bytes);
      if (etag) res.setHeader('ETag', etag);
    }
    if (req.fresh) res.statusCode = 304;
  }
  const status = res.statusCode;
  if (status === 204 || status === 304) {
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.removeHeader('Transfer-Encoding');
    res.end();
  } else if (status === 205) {
    res.setHeader('Content-Length', '0');
    res.removeHeader('Transfer-Encoding');
    res.end();
  } else if (method === 'HEAD') res.end();
  else res.end(bytes);
  return res;
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
    if (status < 200 || status >= 300 || status === 204 || body === undefined) return sendJson(this, json, body);
    // What `vary` makes of no Vary header, without parsing one.
    if (this.getHeader('Vary') === undefined) this.setHeader('Vary', 'Accept');
    else this.vary('Accept');
    const accept = this.req.headers.accept;
    const type = JSON_ACCEPTS.has(accept) ? 'application/json' : this.req.accepts(PRODUCIBLE_TYPES);
    if (type === 'text/plain') return sendText(this, body);
    if (type === 'multipart/form-data') {
      // JSON round trip: the members the JSON answer would have (toJSON, no undefineds).
      const text = JSON.stringify(body);
      const wire: unknown = text === undefined ? undefined : JSON.parse(text);
      if (isPlainObject(wire)) return sendMultipart(this, wire);
    }
    return sendJson(this, json, body);
  };
}
