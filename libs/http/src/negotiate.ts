import type { RequestHandler, Response } from 'express';
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

/**
 * tsoa's generated routes answer with `res.status(code).json(data)`, so wrapping
 * `res.json` is the one place every success body passes through. Only 2xx bodies are
 * negotiated: errors are always JSON. When `Accept` names nothing we can produce we
 * still answer JSON (lenient) rather than 406, and bodies that are not objects (arrays,
 * scalars) have no top-level members to split into parts, so they go as JSON too.
 */
export function negotiation(): RequestHandler {
  return (req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body?: unknown): Response => {
      const status = res.statusCode;
      if (status < 200 || status >= 300 || status === 204 || body === undefined) return json(body);
      res.vary('Accept');
      const type = req.accepts(PRODUCIBLE_TYPES);
      if (type === 'text/plain') return sendText(res, body);
      if (type === 'multipart/form-data') {
        // JSON round trip: the members the JSON answer would have (toJSON, no undefineds).
        const text = JSON.stringify(body);
        const wire: unknown = text === undefined ? undefined : JSON.parse(text);
        if (isPlainObject(wire)) return sendMultipart(res, wire);
      }
      return json(body);
    };
    next();
  };
}
