/**
 * Where HTTP/1.1 messages begin and end in a byte stream (RFC 9112), for a
 * relay that passes bodies through untouched and rewrites only heads. Strict
 * where a lenient reading lets two parsers disagree about a boundary (request
 * smuggling): bare CR or LF, folded or malformed header lines, both
 * Content-Length and Transfer-Encoding, differing lengths, a malformed chunk
 * line: each ends the connection.
 */

/** A message's start line and headers. Names are lower-cased; values trimmed. */
export interface Head {
  /** Request method; '' for a response. */
  method: string;
  /** Request target; '' for a response. */
  target: string;
  /** Response status; 0 for a request. */
  status: number;
  /** 0 or 1: HTTP/1.0 or HTTP/1.1. */
  minor: number;
  names: string[];
  values: string[];
}

/** How a message's body is delimited. `raw`: the connection is no longer HTTP (a switched protocol) from here on. */
export type Framing = { kind: 'none' } | { kind: 'length'; bytes: number } | { kind: 'chunked' } | { kind: 'close' } | { kind: 'raw' };

export const NO_BODY: Framing = { kind: 'none' };

/** A message the relay will not pass on; `status` is what a request gets when it can still be answered. */
export class FramingError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** Node's own limit for a head (`--max-http-header-size`). */
export const MAX_HEAD_BYTES = 16 * 1024;
const MAX_LINE_BYTES = 4 * 1024;

// Field values: visible characters, spaces, tabs and obs-text; no other control character (the control characters are what these find).
/* eslint-disable no-control-regex */
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;
const BAD_TARGET = /[\x00-\x20\x7f]/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\x00-\x08\x0a-\x1f\x7f]*)?$/;
/* eslint-enable no-control-regex */

/** Token characters (RFC 9110 section 5.6.2), by character code. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") TCHAR[c.charCodeAt(0)] = 1;

/** True when `text[from, to)` is a non-empty token. */
function isToken(text: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || TCHAR[c] === 0) return false;
  }
  return true;
}

/** True when `text[from, to)` holds a control character a field value must not (anything below a space but a tab, and DEL). */
function hasBadValueChar(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if ((c < 32 && c !== 9) || c === 127) return true;
  }
  return false;
}

/**
 * Parses a head's text (latin1, without the blank line that ends it). Scans
 * the text once by character codes (no line array, no regular expression per
 * line: ADR 0087); what it accepts is what the patterns above describe.
 */
export function parseHead(text: string, request: boolean): Head {
  let lineEnd = text.indexOf('\r\n');
  if (lineEnd === -1) lineEnd = text.length;
  const start = text.slice(0, lineEnd);
  const head: Head = { method: '', target: '', status: 0, minor: 1, names: [], values: [] };
  if (request) {
    const first = start.indexOf(' ');
    const last = start.lastIndexOf(' ');
    const target = start.slice(first + 1, last);
    const version = start.slice(last + 1);
    if (first <= 0 || last === first || !isToken(start, 0, first) || !target || BAD_TARGET.test(target) || (version !== 'HTTP/1.1' && version !== 'HTTP/1.0')) {
      throw new FramingError('malformed request line');
    }
    head.method = start.slice(0, first);
    head.target = target;
    head.minor = version === 'HTTP/1.1' ? 1 : 0;
  } else {
    const m = STATUS_LINE.exec(start);
    if (!m) throw new FramingError('malformed status line', 502);
    head.minor = Number(m[1]);
    head.status = Number(m[2]);
  }
  const status = request ? 400 : 502;
  while (lineEnd < text.length) {
    const at = lineEnd + 2;
    lineEnd = text.indexOf('\r\n', at);
    if (lineEnd === -1) lineEnd = text.length;
    const colon = text.indexOf(':', at);
    // A leading space or tab is an obsolete line folding; a space before the colon, a malformed name.
    if (colon === -1 || colon >= lineEnd || !isToken(text, at, colon)) throw new FramingError('malformed header line', status);
    let from = colon + 1;
    let to = lineEnd;
    while (from < to && (text.charCodeAt(from) === 32 || text.charCodeAt(from) === 9)) from++;
    while (to > from && (text.charCodeAt(to - 1) === 32 || text.charCodeAt(to - 1) === 9)) to--;
    if (hasBadValueChar(text, from, to)) throw new FramingError('malformed header value', status);
    head.names.push(text.slice(at, colon).toLowerCase());
    head.values.push(text.slice(from, to));
  }
  return head;
}

/** Every value of a header, comma-separated lists split, lower-cased and trimmed. */
export function listOf(head: Head, name: string): string[] {
  return itemsOf(head, name, false);
}

/** A header's comma-separated items, trimmed; `exact`: as sent and empty ones kept (a malformed list stays visible), else lower-cased without empties. */
function itemsOf(head: Head, name: string, exact: boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < head.names.length; i++) {
    if (head.names[i] !== name) continue;
    for (const part of head.values[i].split(',')) {
      const item = exact ? part.trim() : part.trim().toLowerCase();
      if (item || exact) out.push(item);
    }
  }
  return out;
}

/** The first value of a header, as sent. */
export function valueOf(head: Head, name: string): string | undefined {
  const i = head.names.indexOf(name);
  return i === -1 ? undefined : head.values[i];
}

/** The body's length: every Content-Length item (a list or repeated lines) the same digits. An empty item is no length but a malformed one. */
function lengthOf(head: Head, status: number): number | undefined {
  const lengths = itemsOf(head, 'content-length', true);
  if (lengths.length === 0) return undefined;
  if (lengths.some((l) => l !== lengths[0]) || !/^\d{1,15}$/.test(lengths[0])) throw new FramingError('invalid Content-Length', status);
  return Number(lengths[0]);
}

/** A request's body: chunked (the last coding), a length, or none (RFC 9112 section 6.3). */
export function requestFraming(head: Head): Framing {
  const codings = listOf(head, 'transfer-encoding');
  if (codings.length > 0) {
    if (valueOf(head, 'content-length') !== undefined) throw new FramingError('both Content-Length and Transfer-Encoding');
    if (head.minor === 0) throw new FramingError('Transfer-Encoding in an HTTP/1.0 request');
    if (codings[codings.length - 1] !== 'chunked' || codings.indexOf('chunked') !== codings.length - 1) throw new FramingError('unsupported Transfer-Encoding', 501);
    return { kind: 'chunked' };
  }
  const bytes = lengthOf(head, 400);
  return bytes ? { kind: 'length', bytes } : NO_BODY;
}

/** A response's body, given the method of the request it answers. */
export function responseFraming(head: Head, method: string): Framing {
  if (head.status === 101) return { kind: 'raw' };
  if (head.status < 200 || head.status === 204 || head.status === 304 || method === 'HEAD') return NO_BODY;
  const codings = listOf(head, 'transfer-encoding');
  if (codings.length > 0) {
    if (valueOf(head, 'content-length') !== undefined) throw new FramingError('both Content-Length and Transfer-Encoding', 502);
    return codings[codings.length - 1] === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
  }
  const bytes = lengthOf(head, 502);
  if (bytes === undefined) return { kind: 'close' };
  return bytes ? { kind: 'length', bytes } : NO_BODY;
}

export interface FramerHooks {
  /**
   * A head has arrived (`raw`: its bytes, the blank line included). Answers
   * the bytes to send in its place and the body's framing, or `undefined` to
   * stop here: the framer keeps the head and what follows until `resume`.
   */
  head(head: Head, raw: Buffer): { bytes: Buffer; framing: Framing } | undefined;
  /** Bytes to pass on as they are (body, chunk lines, trailers). */
  data(bytes: Buffer): void;
  /** A message (head and body) has ended. */
  end(): void;
}

const CRLF = Buffer.from('\r\n');
/** A rewritten head and a body piece up to this size after it are joined into one buffer (copying the piece costs less than a second buffer to write). */
const JOIN_MAX_BYTES = 4 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

type State = 'head' | 'length' | 'size' | 'chunk' | 'chunk-end' | 'trailer' | 'raw' | 'held';

/**
 * Splits a stream into messages: heads go to `hooks.head` (which may rewrite
 * them), everything else to `hooks.data` unchanged. Body bytes are never
 * copied: slices of the chunks pushed.
 */
export class Framer {
  private state: State = 'head';
  /** Bytes of an unfinished head or line, or everything held while stopped. */
  private pending: Buffer | undefined;
  private remaining = 0;
  /** The chunk being framed, and the part of it passed on but not yet given to `hooks.data` (one slice for adjacent pieces). */
  private buf: Buffer | undefined;
  private runFrom = 0;
  private runTo = 0;
  /** A rewritten head passed and not yet given to `hooks.data`: it goes with the piece after it. */
  private lead: Buffer | undefined;

  constructor(
    private readonly request: boolean,
    private readonly hooks: FramerHooks,
  ) {}

  /** True while a message's head has been passed and its body has not ended (or the stream is raw). */
  get inMessage(): boolean {
    return this.state !== 'head' && this.state !== 'held';
  }

  /** True once everything is passed on as it comes (a switched protocol, or a body that runs until the close). */
  get isRaw(): boolean {
    return this.state === 'raw';
  }

  /** True while stopped by `head` answering undefined. */
  get held(): boolean {
    return this.state === 'held';
  }

  /** Bytes received and not yet passed on (a partial head or line, or what is held). */
  get buffered(): number {
    return this.pending?.length ?? 0;
  }

  /** What is held (the head that stopped the framer and everything after it), taken out; the framer is empty afterwards. */
  takeHeld(): Buffer {
    const held = this.pending ?? Buffer.alloc(0);
    this.pending = undefined;
    this.state = 'head';
    return held;
  }

  /** From here on everything is passed on as it comes (a switched protocol). */
  raw(): void {
    const held = this.pending;
    this.pending = undefined;
    this.state = 'raw';
    if (held?.length) this.hooks.data(held);
  }

  /** Goes on after a stop: the held head is offered to `hooks.head` again. */
  resume(): void {
    if (this.state !== 'held') return;
    const held = this.takeHeld();
    this.push(held);
  }

  /** Takes the stream's next bytes; throws FramingError at the first thing that is not HTTP/1.1. */
  push(chunk: Buffer): void {
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    this.buf = buf;
    try {
      this.frame(buf);
    } finally {
      this.flush();
      this.buf = undefined;
    }
  }

  /**
   * Passes `buf[from, to)` on: adjacent pieces (an unchanged head and the
   * body after it, a chunk's size line, data and CRLF) go to `hooks.data` as
   * one slice, so they leave in one write rather than a writev of several.
   */
  private pass(from: number, to: number): void {
    if (to === from) return;
    if (this.runTo > this.runFrom) {
      if (this.runTo === from) {
        this.runTo = to;
        return;
      }
      this.flush();
    }
    this.runFrom = from;
    this.runTo = to;
  }

  /** Gives `hooks.data` what is passed and not yet given: a rewritten head joined to a small piece after it (one write, not a writev of two). */
  private flush(): void {
    const lead = this.lead;
    this.lead = undefined;
    if (this.runTo === this.runFrom || !this.buf) {
      if (lead) this.hooks.data(lead);
      return;
    }
    const piece = this.buf.subarray(this.runFrom, this.runTo);
    this.runFrom = this.runTo = 0;
    if (!lead) return this.hooks.data(piece);
    if (piece.length <= JOIN_MAX_BYTES) return this.hooks.data(Buffer.concat([lead, piece], lead.length + piece.length));
    this.hooks.data(lead);
    this.hooks.data(piece);
  }

  private frame(buf: Buffer): void {
    let at = 0;
    while (at < buf.length) {
      switch (this.state) {
        case 'held':
          this.pending = this.pending ? Buffer.concat([this.pending, buf.subarray(at)]) : buf.subarray(at);
          return;
        case 'raw':
          this.pass(at, buf.length);
          return;
        case 'head': {
          // Blank lines before a request line are ignored (RFC 9112 section 2.2).
          while (this.request && at + 1 < buf.length && buf[at] === 13 && buf[at + 1] === 10) at += 2;
          if (at >= buf.length) return;
          const end = buf.indexOf(HEAD_END, at);
          // A head that is refused stays here, whole, for `takeHeld` (the caller may hand it to another reader).
          this.pending = buf.subarray(at);
          if (end === -1) {
            if (buf.length - at > MAX_HEAD_BYTES) throw new FramingError('head too large', 431);
            return;
          }
          if (end - at > MAX_HEAD_BYTES) throw new FramingError('head too large', 431);
          const raw = buf.subarray(at, end + 4);
          // What was passed before this head goes first: the hook may act on the connection.
          this.flush();
          const answer = this.hooks.head(parseHead(buf.toString('latin1', at, end), this.request), raw);
          this.pending = undefined;
          if (!answer) {
            this.state = 'held';
            this.pending = buf.subarray(at);
            return;
          }
          if (answer.bytes === raw) this.pass(at, end + 4);
          else {
            this.flush();
            this.lead = answer.bytes;
          }
          at = end + 4;
          this.begin(answer.framing);
          break;
        }
        case 'length': {
          const take = Math.min(this.remaining, buf.length - at);
          this.pass(at, at + take);
          at += take;
          this.remaining -= take;
          if (this.remaining === 0) this.finish();
          break;
        }
        case 'chunk': {
          const take = Math.min(this.remaining, buf.length - at);
          this.pass(at, at + take);
          at += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = 'chunk-end';
          break;
        }
        case 'chunk-end': {
          if (buf.length - at < 2) {
            this.pending = buf.subarray(at);
            return;
          }
          if (buf[at] !== 13 || buf[at + 1] !== 10) throw new FramingError('malformed chunk');
          this.pass(at, at + 2);
          at += 2;
          this.state = 'size';
          break;
        }
        case 'size':
        case 'trailer': {
          const eol = buf.indexOf(CRLF, at);
          if (eol === -1) {
            if (buf.length - at > (this.state === 'size' ? MAX_LINE_BYTES : MAX_HEAD_BYTES)) throw new FramingError('chunk line too long');
            this.pending = buf.subarray(at);
            return;
          }
          const line = buf.toString('latin1', at, eol);
          this.pass(at, eol + 2);
          at = eol + 2;
          if (this.state === 'trailer') {
            if (line === '') this.finish();
            else if (BAD_VALUE.test(line) || line.indexOf(':') <= 0) throw new FramingError('malformed trailer');
            break;
          }
          // chunk-size [ chunk-ext ]: hex digits, then nothing, or a `;` extension without bare CR or LF.
          const m = /^([0-9A-Fa-f]{1,12})(?:[ \t]*;[^\r\n]*)?$/.exec(line);
          if (!m) throw new FramingError('malformed chunk size');
          this.remaining = parseInt(m[1], 16);
          this.state = this.remaining === 0 ? 'trailer' : 'chunk';
          break;
        }
      }
    }
  }

  private begin(framing: Framing): void {
    switch (framing.kind) {
      case 'none':
        return this.finish();
      case 'length':
        this.remaining = framing.bytes;
        this.state = 'length';
        return;
      case 'chunked':
        this.state = 'size';
        return;
      case 'close':
      case 'raw':
        this.state = 'raw';
        return;
    }
  }

  private finish(): void {
    this.state = 'head';
    // The message's last bytes are passed on before its end is told.
    this.flush();
    this.hooks.end();
  }
}
