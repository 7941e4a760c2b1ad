/**
 * Node request signing: a node proves each call comes from its ed25519 key.
 *
 *   x-ocg-node:    <node address>
 *   authorization: <message>:<signature>:<unix ms>      (a signed auth header)
 *   message      = ocg-node-request <METHOD> <path> <sha256 hex of canonicalJson(body)>
 *
 * The message binds the method, the path (with its query) and the body, and
 * the header's timestamp bounds replay to `maxAgeSeconds`. The body digest is
 * taken over the canonical JSON of the parsed body, not the bytes on the wire,
 * because a body may arrive as JSON, text/plain or multipart and all three
 * parse to the same object (libs/http).
 */
import { hash } from 'node:crypto';
import { createAuthHeader, verifyAuthHeaderAsync, type AuthHeaderFailure } from '../auth-header';
import { isAddress, type WalletSigner } from '../wallet';
import { NODE_ADDRESS_HEADER } from '@ocg/http';

export { NODE_ADDRESS_HEADER };
export const NODE_SIGNATURE_HEADER = 'authorization';
export const NODE_REQUEST_PREFIX = 'ocg-node-request';

export interface NodeRequest {
  method: string;
  /** The request target as sent: path plus query string, e.g. `/nodes/heartbeat`. */
  path: string;
  /** The parsed JSON body; undefined when there is none. */
  body?: unknown;
}

export type NodeRequestFailure = 'missing-node-header' | 'bad-node-address' | 'missing-signature' | AuthHeaderFailure;
export type NodeRequestCheck = { ok: true; nodeAddress: string; timestamp: number } | { ok: false; reason: NodeRequestFailure };

/**
 * JSON with object keys sorted at every depth and no whitespace; `undefined`
 * (no body) is the empty string. Both ends compute it from the parsed value.
 * Written with an explicit stack, not recursion: a body nested 100,000 deep
 * costs time linear in its size and never overflows the call stack.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  const out: string[] = [];
  // Items are values still to write, or text to emit as is; popped in document order.
  const stack: Array<{ v: unknown } | string> = [{ v: value }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === 'string') out.push(item);
    else pushValue(stack, out, toJsonValue(item.v));
  }
  return out.join('');
}

function toJsonValue(v: unknown): unknown {
  const withToJson = v as { toJSON?: () => unknown } | null;
  return withToJson !== null && typeof withToJson === 'object' && typeof withToJson.toJSON === 'function' ? withToJson.toJSON() : v;
}

/** What JSON.stringify leaves out of objects (and writes as null in arrays). */
const skipped = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

function pushValue(stack: Array<{ v: unknown } | string>, out: string[], v: unknown): void {
  if (Array.isArray(v)) {
    stack.push(']');
    for (let i = v.length - 1; i >= 0; i--) {
      stack.push({ v: skipped(v[i]) ? null : v[i] });
      if (i > 0) stack.push(',');
    }
    stack.push('[');
  } else if (v !== null && typeof v === 'object') {
    const record = v as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => !skipped(record[k]))
      .sort();
    stack.push('}');
    keys.reverse().forEach((key, i) => {
      stack.push({ v: record[key] }, ':', JSON.stringify(key));
      if (i < keys.length - 1) stack.push(',');
    });
    stack.push('{');
  } else {
    out.push(JSON.stringify(v) ?? 'null');
  }
}

/** The text a node signs for one request. */
export function nodeRequestMessage({ method, path, body }: NodeRequest): string {
  // One-shot: no Hash object per request.
  const digest = hash('sha256', canonicalJson(body), 'hex');
  return `${NODE_REQUEST_PREFIX} ${method.toUpperCase()} ${path} ${digest}`;
}

/** The headers that sign one request with the node's key (always timed, so they expire). */
export function signNodeRequest(signer: WalletSigner, request: NodeRequest, opts: { now?: number } = {}): Record<string, string> {
  const { header } = createAuthHeader(signer, nodeRequestMessage(request), { includeTime: true, now: opts.now });
  return { [NODE_ADDRESS_HEADER]: signer.address, [NODE_SIGNATURE_HEADER]: header };
}

type Headers = Record<string, string | string[] | undefined>;

/**
 * Checks that `request` was signed by the node named in its headers within
 * `maxAgeSeconds`; the signature is checked in libuv's thread pool
 * (verifySignatureBytesAsync). A failure names its reason; rejects only with
 * SignatureChecksBusyError (too many checks waiting). An edited method, path
 * or body fails as `unexpected-message`.
 */
export async function verifyNodeRequest(headers: Headers, request: NodeRequest, maxAgeSeconds = 300, opts: { now?: number } = {}): Promise<NodeRequestCheck> {
  const nodeAddress = single(headers[NODE_ADDRESS_HEADER]);
  if (nodeAddress === undefined) return { ok: false, reason: 'missing-node-header' };
  if (!isAddress(nodeAddress)) return { ok: false, reason: 'bad-node-address' };
  const header = single(headers[NODE_SIGNATURE_HEADER]);
  if (header === undefined) return { ok: false, reason: 'missing-signature' };
  const check = await verifyAuthHeaderAsync(header, nodeAddress, {
    expectedMessage: nodeRequestMessage(request),
    // Stryker disable next-line BooleanLiteral: the timestamp check below refuses an untimed header alike (only after verifying it)
    requireTimestamp: true,
    maxAgeSeconds,
    now: opts.now,
  });
  if (!check.ok) return { ok: false, reason: check.reason };
  // Stryker disable next-line all: requireTimestamp above already refuses untimed headers; this line narrows the type
  if (check.timestamp === undefined) return { ok: false, reason: 'timestamp-required' }; // requireTimestamp already ensures it
  return { ok: true, nodeAddress, timestamp: check.timestamp };
}

/** Why a node request failed, for the 401 message. */
export function describeNodeFailure(reason: NodeRequestFailure): string {
  const text: Record<NodeRequestFailure, string> = {
    'missing-node-header': `missing ${NODE_ADDRESS_HEADER} header (the node address)`,
    'bad-node-address': `${NODE_ADDRESS_HEADER} is not a node address (base58 of 32 bytes)`,
    'missing-signature': `missing ${NODE_SIGNATURE_HEADER} header (a signed, timed auth header)`,
    malformed: `${NODE_SIGNATURE_HEADER} is not a signed auth header <message>:<signature>:<unix ms>`,
    'unexpected-message': 'the signature covers another method, path or body',
    'timestamp-required': 'the signed header must carry a timestamp',
    'from-the-future': 'the signed header is dated in the future (check the node clock)',
    expired: 'the signed header has expired (check the node clock)',
    'bad-signature': 'the signature does not verify against the node address',
  };
  return `Node signature rejected: ${text[reason]}`;
}

function single(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text || undefined;
}
