/**
 * Signed auth headers: `<message>:<signature>` or `<message>:<signature>:<timestamp>`.
 * With a timestamp the signature covers `<message>:<timestamp>`. The header
 * is read from the right, so the message may itself contain ':':
 *   1. a last part of exactly 13 digits, no leading zero, is the timestamp
 *      (Unix ms; 13 digits spans 2001 to 2286, and a 64-byte base58
 *      signature is never shorter than 64 characters, so the two cannot be
 *      confused);
 *   2. the part before that (or the last part, without timestamp) is the signature;
 *   3. everything before it is the message (at least one character).
 * An untimed header whose message ends in `:<13 digits>` is refused: its
 * signed text would equal that of a timed header, so a timed header could
 * be rewritten into one that never expires.
 */
import { decodeBase58Exact } from './base58';
import { type WalletSigner, asSigner, signMessage, verifySignatureBytes, verifySignatureBytesAsync } from './wallet';

export const AUTH_HEADER_MAX_AGE_SECONDS = 300;
/** The first part of every node API message; no other use of a wallet signature starts with it by accident. */
export const NODE_API_MESSAGE_PREFIX = 'ocg-node-api';

/**
 * The message a node API header signs: `ocg-node-api:<node address>:<job address>`.
 * Signed with a timestamp (sign-message/external with includeTime), it is good
 * for that node and that job for 5 minutes, and for nothing else.
 */
export function nodeApiMessage(node: string, job: string): string {
  return `${NODE_API_MESSAGE_PREFIX}:${node}:${job}`;
}
export const AUTH_HEADER_CLOCK_SKEW_SECONDS = 30;
const TIMESTAMP = /^[1-9]\d{12}$/;
const ENDS_WITH_TIMESTAMP = /:[1-9]\d{12}$/;
// Node refuses request heads over 16 KiB anyway; this bounds work on garbage.
const MAX_HEADER_LENGTH = 16 * 1024;
// What survives an HTTP header unchanged: parsers trim outer whitespace.
const HEADER_SAFE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const SIGNATURE_BYTES = 64;

export interface SignedMessage {
  message: string;
  signature: string;
  /** Unix ms; present only when the signature covers `${message}:${timestamp}`. */
  timestamp?: number;
}

export interface ParsedAuthHeader extends SignedMessage {
  /** The exact text the signature must cover. */
  signedText: string;
}

export type AuthHeaderFailure = 'malformed' | 'bad-signature' | 'expired' | 'from-the-future' | 'timestamp-required' | 'unexpected-message';
export type AuthHeaderCheck = { ok: true; message: string; timestamp?: number } | { ok: false; reason: AuthHeaderFailure };

export interface VerifyAuthHeaderOptions {
  /** Default 300. */
  maxAgeSeconds?: number;
  /** Unix ms; defaults to Date.now(). */
  now?: number;
  requireTimestamp?: boolean;
  /** How far ahead of `now` a timestamp may be. Default 30. */
  clockSkewSeconds?: number;
  /** When set, any other message fails with 'unexpected-message'. */
  expectedMessage?: string;
}

/**
 * What POST /auth/sign-message/external returns (minus userAddress). The
 * message is signed as given: the spec puts no limit on it beyond length.
 */
export function signForExternal(signer: WalletSigner | Buffer, message: string, includeTime: boolean, now?: number): SignedMessage {
  if (typeof message !== 'string' || message === '') throw new TypeError('message to sign must be a non-empty string');
  if (!includeTime) return { message, signature: signMessage(signer, message) };
  const timestamp = checkTimestamp(now ?? Date.now());
  return { message, signature: signMessage(signer, `${message}:${timestamp}`), timestamp };
}

/** Builds a header; includeTime defaults to true so headers expire unless asked otherwise. */
export function createAuthHeader(
  signer: WalletSigner | Buffer,
  message: string,
  opts: { includeTime?: boolean; now?: number } = {},
): { header: string; signature: string; timestamp?: number } {
  const includeTime = opts.includeTime ?? true;
  checkHeaderMessage(message, includeTime);
  const { signature, timestamp } = signForExternal(asSigner(signer), message, includeTime, opts.now);
  if (timestamp === undefined) return { header: `${message}:${signature}`, signature };
  return { header: `${message}:${signature}:${timestamp}`, signature, timestamp };
}

/** Splits a header by the rules above; checks the signature's shape, not its validity. Undefined when malformed. */
export function parseAuthHeader(header: string): ParsedAuthHeader | undefined {
  return splitAuthHeader(header)?.parsed;
}

/** parseAuthHeader, with the signature's bytes (decoding them is how its shape is checked; the verify reuses them). */
function splitAuthHeader(header: string): { parsed: ParsedAuthHeader; signature: Buffer } | undefined {
  if (typeof header !== 'string' || header.length > MAX_HEADER_LENGTH) return undefined;
  let rest = header;
  let timeText: string | undefined;
  const lastColon = rest.lastIndexOf(':');
  // Stryker disable next-line ConditionalExpression,EqualityOperator: an early exit; without a colon (or with only a leading one) every path below also ends at `cut <= 0`
  if (lastColon < 0) return undefined;
  if (TIMESTAMP.test(rest.slice(lastColon + 1))) {
    timeText = rest.slice(lastColon + 1);
    rest = rest.slice(0, lastColon);
  }
  const cut = rest.lastIndexOf(':');
  if (cut <= 0) return undefined;
  const message = rest.slice(0, cut);
  const signature = rest.slice(cut + 1);
  const bytes = decodeBase58Exact(signature, SIGNATURE_BYTES);
  if (bytes === undefined) return undefined;
  if (timeText === undefined) return ENDS_WITH_TIMESTAMP.test(message) ? undefined : { parsed: { message, signature, signedText: message }, signature: bytes };
  return { parsed: { message, signature, timestamp: Number(timeText), signedText: `${message}:${timeText}` }, signature: bytes };
}

/** Checks a header against the signer's address; never throws on bad input. */
export function verifyAuthHeader(header: string, address: string, opts: VerifyAuthHeaderOptions = {}): AuthHeaderCheck {
  const read = readAuthHeader(header, opts);
  if (!read.ok) return read;
  return verifySignatureBytes(address, read.signedText, read.signature) ? read.check : BAD_SIGNATURE;
}

/**
 * verifyAuthHeader with the signature checked in libuv's thread pool
 * (verifySignatureBytesAsync): for servers, whose event loop should not
 * spend a tenth of a millisecond on each signed request. The same answers.
 */
export async function verifyAuthHeaderAsync(header: string, address: string, opts: VerifyAuthHeaderOptions = {}): Promise<AuthHeaderCheck> {
  const read = readAuthHeader(header, opts);
  if (!read.ok) return read;
  return (await verifySignatureBytesAsync(address, read.signedText, read.signature)) ? read.check : BAD_SIGNATURE;
}

const BAD_SIGNATURE: AuthHeaderCheck = { ok: false, reason: 'bad-signature' };

/** Everything verifyAuthHeader checks before the signature: its shape, its message and its time; then what the signature must cover. */
function readAuthHeader(
  header: string,
  opts: VerifyAuthHeaderOptions,
): { ok: false; reason: AuthHeaderFailure } | { ok: true; signedText: string; signature: Buffer; check: AuthHeaderCheck } {
  const split = splitAuthHeader(header);
  if (split === undefined) return { ok: false, reason: 'malformed' };
  const { parsed } = split;
  if (opts.expectedMessage !== undefined && parsed.message !== opts.expectedMessage) return { ok: false, reason: 'unexpected-message' };
  // Cheap clock checks before the signature, so stale replays cost no crypto.
  const timeFailure = checkTime(parsed.timestamp, opts);
  if (timeFailure !== undefined) return { ok: false, reason: timeFailure };
  const check: AuthHeaderCheck = parsed.timestamp === undefined ? { ok: true, message: parsed.message } : { ok: true, message: parsed.message, timestamp: parsed.timestamp };
  return { ok: true, signedText: parsed.signedText, signature: split.signature, check };
}

function checkTime(timestamp: number | undefined, opts: VerifyAuthHeaderOptions): AuthHeaderFailure | undefined {
  if (timestamp === undefined) return opts.requireTimestamp ? 'timestamp-required' : undefined;
  const now = opts.now ?? Date.now();
  if (timestamp - now > (opts.clockSkewSeconds ?? AUTH_HEADER_CLOCK_SKEW_SECONDS) * 1000) return 'from-the-future';
  if (now - timestamp > (opts.maxAgeSeconds ?? AUTH_HEADER_MAX_AGE_SECONDS) * 1000) return 'expired';
  return undefined;
}

function checkTimestamp(now: number): number {
  if (!Number.isSafeInteger(now) || !TIMESTAMP.test(String(now))) {
    throw new RangeError(`timestamp must be Unix time in milliseconds (13 digits), got ${now}`);
  }
  return now;
}

function checkHeaderMessage(message: string, includeTime: boolean): void {
  if (typeof message !== 'string' || !HEADER_SAFE.test(message)) {
    throw new TypeError('auth header message must be non-empty visible ASCII (inner spaces allowed) to survive HTTP unchanged');
  }
  if (!includeTime && ENDS_WITH_TIMESTAMP.test(message)) {
    throw new TypeError('an untimed auth header message must not end in ":<13 digits>": it would read as a timestamp');
  }
}
