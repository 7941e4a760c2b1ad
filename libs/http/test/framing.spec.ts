/** The relay's message framing (ADR 0084): boundaries found wherever the stream is cut, bytes passed through unchanged. */
import fc from 'fast-check';
import { Framer, FramingError, parseHead, requestFraming, responseFraming, type Head } from '../src/relay/framing';

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

/** The head parser as ADR 0084 first wrote it (a line array, patterns per line): what parseHead must still accept and refuse. */
function referenceParse(text: string, request: boolean): Head | string {
  /* eslint-disable no-control-regex */
  const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
  const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;
  const BAD_TARGET = /[\x00-\x20\x7f]/;
  const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\x00-\x08\x0a-\x1f\x7f]*)?$/;
  /* eslint-enable no-control-regex */
  const lines = text.split('\r\n');
  const start = lines[0];
  const head: Head = { method: '', target: '', status: 0, minor: 1, names: [], values: [] };
  if (request) {
    const first = start.indexOf(' ');
    const last = start.lastIndexOf(' ');
    const method = start.slice(0, first);
    const target = start.slice(first + 1, last);
    const version = start.slice(last + 1);
    if (first <= 0 || last === first || !TOKEN.test(method) || !target || BAD_TARGET.test(target) || (version !== 'HTTP/1.1' && version !== 'HTTP/1.0')) return 'line 400';
    Object.assign(head, { method, target, minor: version === 'HTTP/1.1' ? 1 : 0 });
  } else {
    const m = STATUS_LINE.exec(start);
    if (!m) return 'line 502';
    Object.assign(head, { minor: Number(m[1]), status: Number(m[2]) });
  }
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    if (colon <= 0 || !TOKEN.test(name)) return `header ${request ? 400 : 502}`;
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (BAD_VALUE.test(value)) return `value ${request ? 400 : 502}`;
    head.names.push(name.toLowerCase());
    head.values.push(value);
  }
  return head;
}

function parsed(text: string, request: boolean): Head | string {
  try {
    return parseHead(text, request);
  } catch (err) {
    const e = err as FramingError;
    return `${e.message.includes('request line') || e.message.includes('status line') ? 'line' : e.message.includes('value') ? 'value' : 'header'} ${e.status}`;
  }
}

describe('parseHead', () => {
  it('accepts and refuses exactly what the line-by-line patterns do, statuses included', () => {
    // Heads built from pieces near the rules' edges: separators, spaces and tabs, control characters, obs-text, names with spaces.
    const piece = fc.constantFrom('a', 'Host', 'X-Y', ':', ' ', '\t', '\r', '\n', '\r\n', '\x00', '\x7f', '\xe9', 'v a l', '(', '/p?q=1', '');
    const line = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''));
    const startLine = fc.oneof(
      fc.constantFrom('GET / HTTP/1.1', 'POST /x?y HTTP/1.0', 'GET  / HTTP/1.1', 'G(T / HTTP/1.1', 'GET / HTTP/2', 'HTTP/1.1 200 OK', 'HTTP/1.0 404', 'HTTP/1.1 20 OK'),
      line,
    );
    fc.assert(
      fc.property(startLine, fc.array(fc.oneof(line, fc.constantFrom('Host: a', 'X-A:  b \t', 'x-b:', 'Te\x00: c')), { maxLength: 5 }), fc.boolean(), (start, headers, request) => {
        const text = [start, ...headers].join('\r\n');
        expect(parsed(text, request)).toEqual(referenceParse(text, request));
      }),
      { numRuns: 3000 },
    );
  });
});

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

  it('passes an unchanged head and the bytes after it in the same chunk as one piece (one write downstream)', () => {
    const pieces: string[] = [];
    const framer = new Framer(false, {
      head: (head, raw) => ({ bytes: raw, framing: responseFraming(head, 'GET') }),
      data: (b) => pieces.push(b.toString()),
      end: () => pieces.push('|'),
    });
    const length = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello';
    const chunked = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n';
    framer.push(Buffer.from(length + chunked + length.slice(0, 40)));
    framer.push(Buffer.from(length.slice(40)));
    expect(pieces).toEqual([length, '|', chunked, '|', length.slice(0, 40), length.slice(40), '|']);
  });

  it('joins a rewritten head to a small body piece after it; a large piece goes on as it is', () => {
    const pieces: Buffer[] = [];
    const framer = new Framer(false, {
      head: (head) => ({ bytes: Buffer.from('HEAD\r\n\r\n'), framing: responseFraming(head, 'GET') }),
      data: (b) => pieces.push(b),
      end: () => undefined,
    });
    const big = 'x'.repeat(10_000);
    framer.push(Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n${big}`));
    expect(pieces.map((p) => p.toString())).toEqual(['HEAD\r\n\r\nhello', 'HEAD\r\n\r\n', big]);
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
