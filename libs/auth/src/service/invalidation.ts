/**
 * Reads an invalidation message liberally, so publisher and subscribers can
 * evolve apart: a bare key id, `"*"`, or JSON such as `"key_…"`,
 * `{"keyId": "key_…", "hash": "<lookup hash>"}` (what client-manager sends),
 * `{"apiKeyId": …}`, `{"id": …}`, `{"keyIds": [...]}`, `{"userId": …}` (every
 * key of a user) or `{"all": true}`.
 */
export interface Invalidation {
  all: boolean;
  keyIds: string[];
  /** Lookup hashes, the cache's own key: they drop an entry even if its key id was never seen. */
  hashes: string[];
  userIds: string[];
}

export function parseInvalidation(text: string): Invalidation {
  const trimmed = text.trim();
  let message: unknown = trimmed;
  // Only these start a JSON text that can hold anything but a key id (a number, true, false or null is read as one).
  if ('{["'.includes(trimmed[0])) {
    try {
      message = JSON.parse(trimmed);
    } catch {
      // not JSON after all: treat the text as a key id
    }
  }
  return fromMessage(message);
}

function fromMessage(message: unknown): Invalidation {
  if (typeof message === 'string') return message === '*' ? everything() : only(message ? [message] : []);
  if (Array.isArray(message)) return only(strings(message));
  // Stryker disable next-line ConditionalExpression,LogicalOperator,ArrayDeclaration: unreachable from parseInvalidation (JSON is parsed only from '{', '[' or '"'); keeps this total
  if (message === null || typeof message !== 'object') return only([]);
  const m = message as Record<string, unknown>;
  if (m.all === true) return everything();
  return {
    all: false,
    keyIds: [m.keyId, m.apiKeyId, m.id, ...arrayOf(m.keyIds), ...arrayOf(m.apiKeyIds)].filter(isText),
    hashes: [m.hash, ...arrayOf(m.hashes)].filter(isText),
    userIds: [m.userId, ...arrayOf(m.userIds)].filter(isText),
  };
}

const everything = (): Invalidation => ({ all: true, keyIds: [], hashes: [], userIds: [] });
const only = (keyIds: string[]): Invalidation => ({ all: false, keyIds, hashes: [], userIds: [] });
const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';
const strings = (list: unknown[]): string[] => list.filter(isText);
const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
