import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import busboy from 'busboy';
import { bodyTooLarge, MalformedBodyError, PayloadTooLargeError } from './http-error';
import { parseJsonText } from './json-text';

/** Enough for any request object we define; more parts than this is abuse. */
const MAX_PARTS = 1000;
const MAX_NAME_BYTES = 200;

function isJsonType(mimeType: string): boolean {
  return mimeType === 'application/json' || /^application\/[^/]+\+json$/.test(mimeType);
}

/**
 * A field holds a string member's raw text or another member's JSON text. Text that
 * is exactly the JSON of a number, boolean, null, object or array is parsed; anything
 * else (including the JSON of a string, and text with surrounding blanks, which
 * JSON.stringify never makes) stays a string. A part that says
 * `Content-Type: application/json` is always parsed, strictly, and is the way to send
 * a string such as "123" unambiguously.
 */
export function fieldValue(name: string, text: string, mimeType: string): unknown {
  if (isJsonType(mimeType)) return parseJsonText(text, `JSON in multipart field "${name}"`);
  if (text === '' || text !== text.trim() || !'{["-0123456789tfn'.includes(text.charAt(0))) return text;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? text : value;
  } catch {
    return text;
  }
}

/** One field gives its value; a repeated field name gives the array of its values in order. */
function collect(fields: Map<string, unknown[]>): Record<string, unknown> {
  // fromEntries defines own properties, so a field named "__proto__" cannot touch the prototype.
  return Object.fromEntries([...fields].map(([k, vs]) => [k, vs.length === 1 ? vs[0] : vs]));
}

/**
 * Reads a multipart/form-data body into the request object. File parts count as fields
 * (their content is the text), so `curl -F definition=@job.json` works.
 */
export function parseMultipart(req: Request, limit: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length']) > limit) return reject(bodyTooLarge(limit));
    if (req.headers['content-length'] === '0') return resolve({});
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { fieldSize: limit, fileSize: limit, parts: MAX_PARTS, fields: MAX_PARTS, files: MAX_PARTS, fieldNameSize: MAX_NAME_BYTES },
      });
    } catch (err) {
      return reject(new MalformedBodyError(`Malformed multipart body: ${(err as Error).message}`));
    }
    const fields = new Map<string, unknown[]>();
    let failed = false;
    let received = 0;
    // busboy may close before the last file stream's 'end' reaches us; settle after both.
    let openFiles = 0;
    let closed = false;
    const settle = (): void => {
      if (!failed && closed && openFiles === 0) resolve(collect(fields));
    };
    const fail = (err: unknown): void => {
      if (failed) return;
      failed = true;
      req.unpipe(bb);
      req.off('data', count);
      req.resume();
      reject(err);
    };
    const add = (name: string, text: string, mimeType: string): void => {
      if (failed || name === undefined) return;
      try {
        const values = fields.get(name) ?? [];
        values.push(fieldValue(name, text, mimeType));
        fields.set(name, values);
      } catch (err) {
        fail(err);
      }
    };
    const count = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) fail(bodyTooLarge(limit));
    };
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated || info.nameTruncated) return fail(bodyTooLarge(limit));
      add(name, value, info.mimeType);
    });
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      openFiles++;
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => fail(bodyTooLarge(limit)));
      stream.on('end', () => {
        openFiles--;
        add(name, Buffer.concat(chunks).toString('utf8'), info.mimeType);
        settle();
      });
    });
    for (const event of ['partsLimit', 'fieldsLimit', 'filesLimit']) {
      bb.on(event, () => fail(new PayloadTooLargeError(`Multipart body has more than ${MAX_PARTS} parts`)));
    }
    bb.on('error', (err: Error) => fail(new MalformedBodyError(`Malformed multipart body: ${err.message}`)));
    bb.on('close', () => {
      closed = true;
      settle();
    });
    req.on('data', count);
    req.pipe(bb);
  });
}

/** HTML's form-data escaping for names: `"` and line breaks cannot appear raw. */
function escapeName(name: string): string {
  return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * One part per top-level member: strings raw as text/plain, everything else as its
 * JSON text labelled application/json, so a reader can tell `"123"` from `123`.
 */
export function encodeMultipart(obj: Record<string, unknown>): { contentType: string; body: Buffer } {
  const parts = Object.entries(obj)
    .filter(([, v]) => v !== undefined)
    .map(([name, v]) => {
      const isString = typeof v === 'string';
      const type = isString ? 'text/plain; charset=utf-8' : 'application/json';
      const head = `Content-Disposition: form-data; name="${escapeName(name)}"\r\nContent-Type: ${type}\r\n\r\n`;
      return { head, text: isString ? v : JSON.stringify(v) };
    });
  let boundary: string;
  do boundary = `ocg-${randomBytes(18).toString('hex')}`;
  while (parts.some((p) => p.text.includes(boundary)));
  const text = parts.map((p) => `--${boundary}\r\n${p.head}${p.text}\r\n`).join('') + `--${boundary}--\r\n`;
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.from(text, 'utf8') };
}
