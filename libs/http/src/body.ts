import type { Request, RequestHandler } from 'express';
import { bodyTooLarge, UnsupportedMediaTypeError } from './http-error';
import { parseJsonText } from './json-text';
import { parseMultipart } from './multipart';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
export const ACCEPTED_REQUEST_TYPES = ['application/json', 'text/plain', 'multipart/form-data'] as const;

type WireFormat = 'json' | 'text' | 'multipart';

/** The usual header, decided without splitting it. */
const PLAIN_JSON = { type: 'application/json', charset: undefined };

/** The media type without parameters, lowercased; undefined when absent. */
function mediaTypeOf(req: Request): { type: string | undefined; charset: string | undefined } {
  const header = req.headers['content-type'];
  if (!header) return { type: undefined, charset: undefined };
  if (header === 'application/json') return PLAIN_JSON;
  const [type, ...params] = header.split(';').map((s) => s.trim());
  const charset = params
    .find((p) => /^charset=/i.test(p))
    ?.slice(8)
    .replace(/"/g, '')
    .toLowerCase();
  return { type: (type ?? '').toLowerCase(), charset };
}

function formatOf(type: string | undefined): WireFormat | undefined {
  if (type === 'application/json' || /^application\/[^/]+\+json$/.test(type ?? '')) return 'json';
  if (type === 'text/plain') return 'text';
  if (type === 'multipart/form-data') return 'multipart';
  return undefined;
}

function unsupported(what: string): UnsupportedMediaTypeError {
  return new UnsupportedMediaTypeError(`${what}; send ${ACCEPTED_REQUEST_TYPES.join(', ')}`);
}

/** Same test as type-is: a body is coming when its length is declared or it is chunked. */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/** Reads the whole body, failing as soon as it passes `limit` (declared or counted). */
export function readBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length']) > limit) return reject(bodyTooLarge(limit));
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // Node discards the rest once the 413 is sent; keep reading so the socket drains.
        req.resume();
        reject(bodyTooLarge(limit));
      } else chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/** JSON and text/plain carry the same thing: the object's JSON text. */
async function parseText(req: Request, limit: number, format: WireFormat): Promise<unknown> {
  const read = (await readBody(req, limit)).toString('utf8');
  const text = read.charCodeAt(0) === 0xfeff ? read.slice(1) : read;
  // An empty body is the empty object, as it is for a multipart body with no fields.
  if (text.trim() === '') return {};
  return parseJsonText(text, format === 'json' ? 'JSON body' : 'JSON text in text/plain body');
}

/**
 * Parses the three wire formats into the same object before validation (see README).
 * GET/HEAD bodies and empty bodies without a media type leave `req.body` undefined.
 */
export function bodyParser(limit = DEFAULT_BODY_LIMIT): RequestHandler {
  return (req, _res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || !hasBody(req)) return next();
    const { type, charset } = mediaTypeOf(req);
    const format = formatOf(type);
    if (!format) {
      if (req.headers['content-length'] === '0') return next();
      return next(unsupported(type ? `Unsupported media type "${type}"` : 'Missing Content-Type'));
    }
    if (charset && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii') {
      return next(new UnsupportedMediaTypeError(`Unsupported charset "${charset}"; send utf-8`));
    }
    const encoding = req.headers['content-encoding'];
    if (encoding && encoding.toLowerCase() !== 'identity') {
      return next(new UnsupportedMediaTypeError(`Unsupported Content-Encoding "${encoding}"; send the body uncompressed`));
    }
    const parsed = format === 'multipart' ? parseMultipart(req, limit) : parseText(req, limit, format);
    parsed.then(
      (body) => {
        req.body = body;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}
