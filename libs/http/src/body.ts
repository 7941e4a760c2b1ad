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

/**
 * One body being read. Its listeners are the prototype's methods bound to it
 * rather than closures: a named closure made per request costs a
 * `defineProperty` of its name once the sources are built with their names
 * kept (tsx, the images' bundles), a few percent of a small request's work.
 */
class BodyRead {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly onData = this.data.bind(this);
  private readonly onEnd = this.end.bind(this);
  private readonly onError = this.error.bind(this);

  constructor(
    private readonly req: Request,
    private readonly limit: number,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    req.on('data', this.onData).on('end', this.onEnd).on('error', this.onError);
  }

  private data(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.cleanup();
      // Node discards the rest once the 413 is sent; keep reading so the socket drains.
      this.req.resume();
      this.reject(bodyTooLarge(this.limit));
    } else this.chunks.push(chunk);
  }

  private end(): void {
    this.cleanup();
    this.resolve(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks));
  }

  private error(err: Error): void {
    this.cleanup();
    this.reject(err);
  }

  private cleanup(): void {
    this.req.off('data', this.onData).off('end', this.onEnd).off('error', this.onError);
  }
}

/** Reads the whole body, failing as soon as it passes `limit` (declared or counted). */
export function readBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length']) > limit) return reject(bodyTooLarge(limit));
    new BodyRead(req, limit, resolve, reject);
  });
}

/** JSON and text/plain carry the same thing: the object's JSON text. */
function parseText(bytes: Buffer, format: WireFormat): unknown {
  const read = bytes.toString('utf8');
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
    const parsed = format === 'multipart' ? parseMultipart(req, limit) : readBody(req, limit);
    // One promise from the body to the routes (they run in its continuation, inside the request's call context).
    parsed.then(
      (body) => {
        try {
          req.body = format === 'multipart' ? body : parseText(body as Buffer, format);
        } catch (err) {
          return next(err);
        }
        next();
      },
      (err: unknown) => next(err),
    );
  };
}
