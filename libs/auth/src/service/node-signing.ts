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
import { createHash } from 'node:crypto';
import { createAuthHeader, verifyAuthHeader, type AuthHeaderFailure } from '../auth-header';
import { isAddress, type WalletSigner } from '../wallet';

export const NODE_ADDRESS_HEADER = 'x-ocg-node';
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
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) out[key] = sortKeys(member);
  }
  return out;
}

/** The text a node signs for one request. */
export function nodeRequestMessage({ method, path, body }: NodeRequest): string {
  const digest = createHash('sha256').update(canonicalJson(body)).digest('hex');
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
 * `maxAgeSeconds`. Never throws; a failure names its reason. An edited
 * method, path or body fails as `unexpected-message`.
 */
export function verifyNodeRequest(headers: Headers, request: NodeRequest, maxAgeSeconds = 300, opts: { now?: number } = {}): NodeRequestCheck {
  const nodeAddress = single(headers[NODE_ADDRESS_HEADER]);
  if (nodeAddress === undefined) return { ok: false, reason: 'missing-node-header' };
  if (!isAddress(nodeAddress)) return { ok: false, reason: 'bad-node-address' };
  const header = single(headers[NODE_SIGNATURE_HEADER]);
  if (header === undefined) return { ok: false, reason: 'missing-signature' };
  const check = verifyAuthHeader(header, nodeAddress, {
    expectedMessage: nodeRequestMessage(request),
    requireTimestamp: true,
    maxAgeSeconds,
    now: opts.now,
  });
  if (!check.ok) return { ok: false, reason: check.reason };
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
  return text === undefined || text === '' ? undefined : text;
}
