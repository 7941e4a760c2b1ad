/** The relay's message framing (ADR 0084): boundaries found wherever the stream is cut, bytes passed through unchanged. */
import fc from 'fast-check';
import { Framer, FramingError, listOf, parseHead, requestFraming, responseFraming, valueOf, type Head } from '../src/relay/framing';

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

/** The FramingError `parse` throws, as `message status`; 'ok' when it accepts. */
function refusal(parse: () => unknown): string {
  try {
    parse();
    return 'ok';
  } catch (err) {
    const e = err as FramingError;
    return `${e.message} ${e.status}`;
  }
}

const headOf = (lines: string[], request = true): Head => parseHead(lines.join('\r\n'), request);

describe('the strict reading, case by case (what smuggling would need a lenient parser to accept)', () => {
  it('refuses malformed request lines and header lines, and control characters in values', () => {
    const request = (lines: string[]) => refusal(() => headOf(lines));
    expect(request(['GET / HTTP/1.1', 'Host: a'])).toBe('ok');
    for (const line of [' GET / HTTP/1.1', 'GET / HTTP/2', 'GET /', 'G(T / HTTP/1.1', 'G\xe9T / HTTP/1.1', 'GET /a\x7f HTTP/1.1', 'GET  HTTP/1.1', 'GET / HTTP/1.1 ']) {
      expect([line, request([line])]).toEqual([line, 'malformed request line 400']);
    }
    for (const header of ['Host a', 'Host : a', ' Host: a', '\tHost: a', ': a', 'H\xe9st: a']) {
      expect([header, request(['GET / HTTP/1.1', header])]).toEqual([header, 'malformed header line 400']);
    }
    for (const value of ['a\x01b', 'a\x7fb', '\x00', 'a\rb', 'a\nb']) {
      expect([value, request(['GET / HTTP/1.1', `X: ${value}`])]).toEqual([value, 'malformed header value 400']);
    }
    // In an answer the same faults are the upstream's: 502.
    expect(refusal(() => headOf(['HTTP/1.1 200 OK', 'X: a\x01'], false))).toBe('malformed header value 502');
    expect(refusal(() => headOf(['HTTP/1.1 200 OK', 'X a'], false))).toBe('malformed header line 502');
    for (const line of ['HTTP/1.1 20 OK', 'HTTP/2 200 OK', 'xHTTP/1.1 200 OK', 'HTTP/1.1 200 O\x01K', 'HTTP/1.1 2000']) {
      expect([line, refusal(() => headOf([line], false))]).toEqual([line, 'malformed status line 502']);
    }
  });

  it('reads a head as sent: methods and names as tokens, values trimmed of spaces and tabs only, tabs and obs-text kept inside', () => {
    const head = headOf(['POST /p?q=1 HTTP/1.0', 'X-A: \t v \t', 'x-b:', 'X-C: a\tb\xe9', 'X-D:  '], true);
    expect(head).toEqual({ method: 'POST', target: '/p?q=1', status: 0, minor: 0, names: ['x-a', 'x-b', 'x-c', 'x-d'], values: ['v', '', 'a\tb\xe9', ''] });
    expect(headOf(['HTTP/1.0 404'], false)).toMatchObject({ status: 404, minor: 0, names: [] });
    expect(headOf(['HTTP/1.1 200 All fine', 'A: b'], false)).toMatchObject({ status: 200, minor: 1, names: ['a'], values: ['b'] });
  });

  it('reads lists and first values as sent', () => {
    const head = headOf(['GET / HTTP/1.1', 'Connection: keep-alive, , Upgrade', 'connection: TE', 'X: first', 'X: second']);
    expect(listOf(head, 'connection')).toEqual(['keep-alive', 'upgrade', 'te']);
    expect(listOf(head, 'missing')).toEqual([]);
    expect(valueOf(head, 'x')).toBe('first');
    expect(valueOf(head, 'missing')).toBeUndefined();
  });

  it('refuses a request body it could frame two ways, and bodies it cannot frame', () => {
    const framing = (lines: string[]) => {
      try {
        return requestFraming(headOf(['POST / HTTP/1.1', ...lines]));
      } catch (err) {
        return `${(err as FramingError).message} ${(err as FramingError).status}`;
      }
    };
    expect(framing([])).toEqual({ kind: 'none' });
    expect(framing(['Content-Length: 0'])).toEqual({ kind: 'none' });
    expect(framing(['Content-Length: 12', 'Content-Length: 12'])).toEqual({ kind: 'length', bytes: 12 });
    expect(framing(['Content-Length: 12, 12'])).toEqual({ kind: 'length', bytes: 12 });
    for (const length of ['12, 13', '+12', '-1', '1e3', '0x10', '1234567890123456', '', ',', '12,', '12 12']) {
      expect([length, framing([`Content-Length: ${length}`])]).toEqual([length, 'invalid Content-Length 400']);
    }
    expect(framing(['Content-Length: 12', 'Content-Length: 13'])).toBe('invalid Content-Length 400');
    expect(framing(['Transfer-Encoding: chunked'])).toEqual({ kind: 'chunked' });
    expect(framing(['Transfer-Encoding: gzip, chunked'])).toEqual({ kind: 'chunked' });
    expect(framing(['Transfer-Encoding: chunked', 'Content-Length: 5'])).toBe('both Content-Length and Transfer-Encoding 400');
    for (const codings of ['gzip', 'chunked, gzip', 'chunked, chunked']) {
      expect([codings, framing([`Transfer-Encoding: ${codings}`])]).toEqual([codings, 'unsupported Transfer-Encoding 501']);
    }
    expect(refusal(() => requestFraming(headOf(['POST / HTTP/1.0', 'Transfer-Encoding: chunked'])))).toBe('Transfer-Encoding in an HTTP/1.0 request 400');
    expect(refusal(() => responseFraming(headOf(['HTTP/1.1 200 OK', 'Content-Length: 1, 2'], false), 'GET'))).toBe('invalid Content-Length 502');
    expect(responseFraming(headOf(['HTTP/1.1 200 OK', 'Content-Length: 0'], false), 'GET')).toEqual({ kind: 'none' });
  });
});

describe('the Framer, case by case', () => {
  /** A request framer recording heads, pieces (as text) and ends; `head` may hold (answer undefined). */
  function framer(request = true, hold?: (head: Head) => boolean) {
    const events: string[] = [];
    const f = new Framer(request, {
      head: (head, raw) => {
        if (hold?.(head)) return undefined;
        events.push(`head ${head.method || head.status} ${head.target}`.trim());
        return { bytes: raw, framing: request ? requestFraming(head) : responseFraming(head, 'GET') };
      },
      data: (b) => events.push(b.toString('latin1')),
      end: () => events.push('end'),
    });
    return { f, events };
  }

  it('skips blank lines before a request line (RFC 9112 section 2.2), not before a status line', () => {
    const { f, events } = framer();
    f.push(Buffer.from('\r\n\r\nGET /a HTTP/1.1\r\n\r\n\r\nGET /b HTTP/1.1\r\n\r\n'));
    expect(events).toEqual(['head GET /a', 'GET /a HTTP/1.1\r\n\r\n', 'end', 'head GET /b', 'GET /b HTTP/1.1\r\n\r\n', 'end']);
    // A lone CR waits for the next bytes: it may start a blank line or nothing.
    const one = framer();
    one.f.push(Buffer.from('\r'));
    expect(one.f.buffered).toBe(1);
    one.f.push(Buffer.from('\nGET / HTTP/1.1\r\n\r\n'));
    expect(one.events).toEqual(['head GET /', 'GET / HTTP/1.1\r\n\r\n', 'end']);
    expect(refusal(() => framer(false).f.push(Buffer.from('\r\nHTTP/1.1 200 OK\r\n\r\n')))).toBe('malformed status line 502');
  });

  it('refuses a head over 16 KiB, whole or still arriving, and takes one of exactly 16 KiB', () => {
    const line = (bytes: number) => `GET / HTTP/1.1\r\nX: ${'a'.repeat(bytes - 'GET / HTTP/1.1\r\nX: '.length)}`;
    const exact = framer();
    exact.f.push(Buffer.from(`${line(16 * 1024)}\r\n\r\n`));
    expect(exact.events.slice(-1)).toEqual(['end']);
    expect(refusal(() => framer().f.push(Buffer.from(`${line(16 * 1024 + 1)}\r\n\r\n`)))).toBe('head too large 431');
    const arriving = framer();
    arriving.f.push(Buffer.from(line(16 * 1024)));
    expect(arriving.f.buffered).toBe(16 * 1024);
    expect(refusal(() => arriving.f.push(Buffer.from('a')))).toBe('head too large 431');
    // After a message, the limit counts from the next head, not from the start of the chunk.
    const after = framer();
    after.f.push(Buffer.from(`GET /first HTTP/1.1\r\n\r\n${line(16 * 1024)}`));
    expect(after.f.buffered).toBe(16 * 1024);
  });

  it('refuses chunk framing that is not exactly RFC 9112: a chunk not ended by CRLF, a bad size line, a long one, a bad trailer', () => {
    const chunked = (body: string) => refusal(() => framer().f.push(Buffer.from(`POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${body}`)));
    expect(chunked('3\r\nabc\r\n0\r\n\r\n')).toBe('ok');
    expect(chunked('3 ; a=b\r\nabc\r\n0\r\nX-T: 1\r\n\r\n')).toBe('ok');
    expect(chunked('3\r\nabcX\n0\r\n\r\n')).toBe('malformed chunk 400');
    expect(chunked('3\r\nabc\rX0\r\n\r\n')).toBe('malformed chunk 400');
    expect(chunked('3\r\nabc\nX0\r\n\r\n')).toBe('malformed chunk 400');
    for (const size of ['x3', '3x', '', '-3', '0x3', '1234567890123', '3 a', ' 3']) {
      expect([size, chunked(`${size}\r\n`)]).toEqual([size, 'malformed chunk size 400']);
    }
    expect(chunked(`${'0'.repeat(4 * 1024 + 1)}`)).toBe('chunk line too long 400');
    expect(chunked(`${'0'.repeat(4 * 1024)}`)).toBe('ok');
    expect(chunked(`0\r\n${'X-T: '.padEnd(16 * 1024 + 1, 'a')}`)).toBe('chunk line too long 400');
    expect(chunked(`0\r\n${'X-T: '.padEnd(16 * 1024, 'a')}`)).toBe('ok');
    for (const trailer of ['no colon', ': empty name', 'X-T: a\x01']) {
      expect([trailer, chunked(`0\r\n${trailer}\r\n\r\n`)]).toEqual([trailer, 'malformed trailer 400']);
    }
  });

  it('waits for a chunk end split across reads, and passes every piece and the end in order', () => {
    const { f, events } = framer();
    f.push(Buffer.from('POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r'));
    expect(f.inMessage).toBe(true);
    expect(f.buffered).toBe(1);
    f.push(Buffer.from('\n0\r\n\r\n'));
    expect(events.join('|')).toBe('head POST /|POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc|\r\n0\r\n\r\n|end');
    expect(f.inMessage).toBe(false);
  });

  it('holds a head it is told to, tells so, and gives it back or goes on with it', () => {
    let holding = true;
    const { f, events } = framer(true, () => holding);
    f.push(Buffer.from('GET /a HTTP/1.1\r\n\r\nGET /b'));
    expect([f.held, f.inMessage, f.isRaw, f.buffered]).toEqual([true, false, false, 'GET /a HTTP/1.1\r\n\r\nGET /b'.length]);
    f.push(Buffer.from(' HTTP/1.1\r\n\r\n'));
    expect(events).toEqual([]);
    holding = false;
    f.resume();
    expect(events).toEqual(['head GET /a', 'GET /a HTTP/1.1\r\n\r\n', 'end', 'head GET /b', 'GET /b HTTP/1.1\r\n\r\n', 'end']);
    expect(f.held).toBe(false);
    // Not holding: resume does nothing.
    f.resume();
    expect(events).toHaveLength(6);
    holding = true;
    f.push(Buffer.from('GET /c HTTP/1.1\r\n\r\n'));
    expect(f.takeHeld().toString()).toBe('GET /c HTTP/1.1\r\n\r\n');
    expect([f.held, f.buffered, f.takeHeld().length]).toEqual([false, 0, 0]);
  });

  it('passes everything on once raw, what was held first', () => {
    const { f, events } = framer(true, () => true);
    f.push(Buffer.from('GET / HTTP/1.1\r\nUpgrade: x\r\n\r\n\x00\x01'));
    f.raw();
    expect([f.isRaw, f.inMessage, f.held]).toEqual([true, true, false]);
    f.push(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    expect(events).toEqual(['GET / HTTP/1.1\r\nUpgrade: x\r\n\r\n\x00\x01', 'GET / HTTP/1.1\r\n\r\n']);
    const empty = framer();
    empty.f.raw();
    expect(empty.events).toEqual([]);
  });

  it('passes an answer without a length until the close, and a body by its length across reads', () => {
    const close = framer(false);
    close.f.push(Buffer.from('HTTP/1.1 200 OK\r\n\r\nabc'));
    close.f.push(Buffer.from('HTTP/1.1 200 OK\r\n\r\n'));
    expect([close.f.isRaw, close.events]).toEqual([true, ['head 200', 'HTTP/1.1 200 OK\r\n\r\nabc', 'HTTP/1.1 200 OK\r\n\r\n']]);
    const length = framer();
    length.f.push(Buffer.from('POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab'));
    expect([length.f.inMessage, length.f.isRaw]).toEqual([true, false]);
    length.f.push(Buffer.from('cdeGET / HTTP/1.1\r\n\r\n'));
    expect(length.events).toEqual(['head POST /', 'POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab', 'cde', 'end', 'head GET /', 'GET / HTTP/1.1\r\n\r\n', 'end']);
  });

  it('joins a rewritten head to a body piece of up to 4 KiB, not to a larger one', () => {
    for (const [size, pieces] of [
      [4096, 1],
      [4097, 2],
    ] as const) {
      const out: Buffer[] = [];
      const f = new Framer(false, { head: (head) => ({ bytes: Buffer.from('H\r\n\r\n'), framing: responseFraming(head, 'GET') }), data: (b) => out.push(b), end: () => undefined });
      f.push(Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${size}\r\n\r\n${'x'.repeat(size)}`));
      expect([size, out.length, Buffer.concat(out).length]).toEqual([size, pieces, 5 + size]);
    }
  });
});
