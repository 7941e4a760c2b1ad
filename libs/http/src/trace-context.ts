import { randomBytes } from 'node:crypto';

/** W3C trace context: the trace and the caller's span, sent on every hop and answered by the gateway. */
export const TRACEPARENT_HEADER = 'traceparent';
/** W3C trace context: vendors' own entries, passed on beside a valid `traceparent`, never alone. */
export const TRACESTATE_HEADER = 'tracestate';

/** A parsed `traceparent`. */
export interface TraceParent {
  traceId: string;
  /** The caller's span. */
  spanId: string;
  /** Bit 0: the caller records this trace (sampled); bit 1: the trace id is random (level 2). */
  flags: number;
  /** The header as it came. */
  header?: string;
}

const SHAPE = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** The flags version 00 defines; others are not passed on. */
const KNOWN_FLAGS = 0x03;

/**
 * A `traceparent` as the W3C spec reads it: lowercase hex fields, version
 * `ff` and all-zero ids invalid, a later version's extra fields after its
 * first four ignored. Anything else is undefined: the caller starts a new
 * trace instead of continuing a malformed one.
 */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string' || value.length < 55) return undefined;
  let head = value;
  if (value.length > 55) {
    // Only a later version may carry more, after a dash.
    if (value.startsWith('00') || value[55] !== '-') return undefined;
    head = value.slice(0, 55);
  }
  if (!SHAPE.test(head) || head.startsWith('ff')) return undefined;
  const traceId = head.slice(3, 35);
  const spanId = head.slice(36, 52);
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, flags: parseInt(head.slice(53, 55), 16), header: value };
}

/** The version 00 header of `parent` (a later version's is written as 00, unknown flags dropped). */
export function formatTraceparent(parent: TraceParent): string {
  const flags = parent.flags & KNOWN_FLAGS;
  // Most headers are already that: passed on as they came, nothing built.
  if (parent.header?.length === 55 && parent.header.startsWith('00') && flags === parent.flags) return parent.header;
  return `00-${parent.traceId}-${parent.spanId}-0${flags.toString(16)}`;
}

// Keys: `name` or `tenant@system`; values: printable ASCII without `,` and `=`, not ending in a space.
const MEMBER = /^(?:[a-z0-9][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
const MAX_MEMBERS = 32;
const MAX_TRACESTATE = 512;

/**
 * A `tracestate` (one header or several, as Node joins them) when every
 * member is well formed, keys are unique and the whole is at most 512
 * characters; otherwise undefined, and nothing of it is passed on.
 */
export function parseTracestate(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_TRACESTATE * 2) return undefined;
  const members: string[] = [];
  const keys = new Set<string>();
  for (const raw of value.split(',')) {
    const member = raw.trim();
    if (member === '') continue;
    if (!MEMBER.test(member)) return undefined;
    const key = member.slice(0, member.indexOf('='));
    if (keys.has(key)) return undefined;
    keys.add(key);
    members.push(member);
  }
  const text = members.join(',');
  return members.length === 0 || members.length > MAX_MEMBERS || text.length > MAX_TRACESTATE ? undefined : text;
}

// Ids come from a pooled buffer of random bytes: one randomBytes call per 256 traces instead of one per id.
let pool = Buffer.alloc(0);
let offset = 0;

function randomHex(bytes: number, zero: string): string {
  for (;;) {
    if (offset + bytes > pool.length) {
      pool = randomBytes(6144);
      offset = 0;
    }
    const hex = pool.toString('hex', offset, (offset += bytes));
    if (hex !== zero) return hex;
  }
}

/** A new trace id: 16 random bytes as hex. */
export function newTraceId(): string {
  return randomHex(16, ZERO_TRACE);
}

/** A new span id: 8 random bytes as hex. */
export function newSpanId(): string {
  return randomHex(8, ZERO_SPAN);
}

/**
 * The `traceparent` of a trace started where none came (tracing off: nothing
 * records it, so it is marked not sampled; the random flag says the id is random).
 */
export function newTraceparent(): string {
  return `00-${newTraceId()}-${newSpanId()}-02`;
}

/** The trace id of a well-formed `traceparent`. */
export function traceIdOf(traceparent: string): string {
  return traceparent.slice(3, 35);
}
