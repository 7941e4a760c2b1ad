/** The relay's message framing (ADR 0084): boundaries found wherever the stream is cut, bytes passed through unchanged. */
import fc from 'fast-check';
import { Framer, requestFraming, responseFraming, type Head } from '../src/relay/framing';

interface Message {
  bytes: Buffer;
  body: string;
}

const token = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
const text = fc.stringMatching(/^[ -~]{0,40}$/);

/** A request with a body by length, chunked (cut into random chunks, with extensions and trailers), or none. */
const request = fc
  .record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
    path: fc.stringMatching(/^\/[a-z0-9/?=&]{0,20}$/),
    headers: fc.array(fc.tuple(token, text), { maxLength: 6 }),
    body: fc.string({ maxLength: 300 }),
    framing: fc.constantFrom('length', 'chunked', 'none'),
    cuts: fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 5 }),
  })
  .map(({ method, path, headers, body, framing, cuts }): Message => {
    const lines = [`${method} ${path} HTTP/1.1`, 'Host: a', ...headers.filter(([n]) => !['host', 'content-length', 'transfer-encoding'].includes(n)).map(([n, v]) => `${n}: ${v}`)];
    const data = Buffer.from(framing === 'none' ? '' : body);
    if (framing === 'length') lines.push(`Content-Length: ${data.length}`);
    if (framing === 'chunked') lines.push('Transfer-Encoding: chunked');
    const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
    if (framing !== 'chunked') return { bytes: Buffer.concat([head, data]), body: data.toString('latin1') };
    const parts: Buffer[] = [head];
    let at = 0;
    for (const cut of cuts) {
      const piece = data.subarray(at, at + cut);
      if (piece.length === 0) break;
      parts.push(Buffer.from(`${piece.length.toString(16)}${cut % 2 ? ';ext=1' : ''}\r\n`), piece, Buffer.from('\r\n'));
      at += piece.length;
    }
    if (at < data.length) parts.push(Buffer.from(`${(data.length - at).toString(16)}\r\n`), data.subarray(at), Buffer.from('\r\n'));
    parts.push(Buffer.from(cuts.length % 2 ? '0\r\nx-trailer: t\r\n\r\n' : '0\r\n\r\n'));
    return { bytes: Buffer.concat(parts), body: data.toString('latin1') };
  });

/** Pushes `stream` cut at `points`; answers the heads, ends and the bytes passed on. */
function frame(stream: Buffer, points: number[]): { heads: Head[]; ends: number; out: Buffer } {
  const heads: Head[] = [];
  const out: Buffer[] = [];
  let ends = 0;
  const framer = new Framer(true, {
    head: (head, raw) => {
      heads.push(head);
      return { bytes: raw, framing: requestFraming(head) };
    },
    data: (b) => out.push(Buffer.from(b)),
    end: () => ends++,
  });
  let at = 0;
  for (const p of [...new Set(points)].sort((a, b) => a - b)) {
    if (p <= at || p >= stream.length) continue;
    framer.push(stream.subarray(at, p));
    at = p;
  }
  framer.push(stream.subarray(at));
  return { heads, ends, out: Buffer.concat(out) };
}

describe('Framer', () => {
  it('finds every message of a pipelined stream however it is cut, and passes every byte on unchanged', () => {
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 20 }), (messages, raw) => {
        const stream = Buffer.concat(messages.map((m) => m.bytes));
        const { heads, ends, out } = frame(
          stream,
          raw.map((n) => n % stream.length),
        );
        expect(heads.length).toBe(messages.length);
        expect(ends).toBe(messages.length);
        expect(out.equals(stream)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('frames answers by the request they answer: HEAD, 204 and 304 have no body, 1xx is not final, no length runs to the close', () => {
    const head = (status: number, headers: string[] = []): Head => ({
      method: '',
      target: '',
      status,
      minor: 1,
      names: headers.map((h) => h.split(':')[0]),
      values: headers.map((h) => h.split(':')[1]),
    });
    expect(responseFraming(head(200, ['content-length:5']), 'HEAD')).toEqual({ kind: 'none' });
    expect(responseFraming(head(204), 'GET')).toEqual({ kind: 'none' });
    expect(responseFraming(head(304, ['content-length:5']), 'GET')).toEqual({ kind: 'none' });
    expect(responseFraming(head(100), 'POST')).toEqual({ kind: 'none' });
    expect(responseFraming(head(101), 'GET')).toEqual({ kind: 'raw' });
    expect(responseFraming(head(200), 'GET')).toEqual({ kind: 'close' });
    expect(responseFraming(head(200, ['transfer-encoding:gzip, chunked']), 'GET')).toEqual({ kind: 'chunked' });
    expect(responseFraming(head(200, ['transfer-encoding:gzip']), 'GET')).toEqual({ kind: 'close' });
    expect(responseFraming(head(200, ['content-length:7']), 'GET')).toEqual({ kind: 'length', bytes: 7 });
    expect(() => responseFraming(head(200, ['content-length:7', 'transfer-encoding:chunked']), 'GET')).toThrow('both');
  });
});
