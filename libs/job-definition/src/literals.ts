/**
 * The `%%…%%` literals a definition may carry in its strings.
 *
 * Resolved at post time (by `normalize`):
 * - `%%ops.<id>.host%%`: the host name of op <id>, which is its id.
 * - `%%global.variables.<name>%%`: a value from the definition's `global.variables`.
 * Resolved by the node (`resolveLiterals`), once the value exists:
 * - `%%global.job%%`: the job address.
 * - `%%global.host%%`: the job's public host name, `<job address>.<node domain>`.
 * - `%%global.node%%`: the address of the node running the job.
 * - `%%ops.<id>.results.<name>%%`: a result captured by op <id> (an op of an earlier stage).
 */
import { LRUCache } from 'lru-cache';
export const GLOBAL_NAMES = ['job', 'host', 'node'] as const;
export type GlobalName = (typeof GLOBAL_NAMES)[number];

export type LiteralRef =
  | { kind: 'global'; name: GlobalName }
  | { kind: 'variable'; name: string }
  | { kind: 'opHost'; op: string }
  | { kind: 'opResult'; op: string; result: string }
  | { kind: 'invalid'; reason: string };

export interface LiteralMatch {
  /** The whole literal, e.g. `%%ops.a.host%%`. */
  raw: string;
  ref: LiteralRef;
}

/** Anything between `%%` that starts like a literal; other `%%` (printf, URLs) is left alone. */
const LITERAL = /%%((?:ops|globals?)\.[^%\s]*)%%/g;
const WHOLE = /^%%((?:ops|globals?)\.[^%\s]*)%%$/;

const SUPPORTED = 'supported: %%ops.<id>.host%%, %%ops.<id>.results.<name>%%, %%global.job%%, %%global.host%%, ' + '%%global.node%%, %%global.variables.<name>%%';

export function findLiterals(text: string): LiteralMatch[] {
  const found: LiteralMatch[] = [];
  // exec on the shared regex: matchAll would clone it on every call, the main cost here.
  // The loop runs until exec answers null, which leaves lastIndex at 0 for the next call.
  for (let m = LITERAL.exec(text); m; m = LITERAL.exec(text)) found.push({ raw: m[0], ref: parseLiteral(m[1]) });
  return found;
}

/** The literal when `text` is exactly one literal, else undefined. */
export function wholeLiteral(text: string): LiteralMatch | undefined {
  const m = WHOLE.exec(text);
  return m ? { raw: m[0], ref: parseLiteral(m[1]) } : undefined;
}

/** Replaces each literal for which `value` answers a string; others stay as they are. */
export function replaceLiterals(text: string, value: (ref: LiteralRef) => string | undefined): string {
  return text.replace(LITERAL, (raw: string, body: string) => value(parseLiteral(body)) ?? raw);
}

/** Definitions repeat the same few literals; parsing is the hot path of validation. */
const parsed = new LRUCache<string, LiteralRef>({ max: 5000 });

function parseLiteral(body: string): LiteralRef {
  let ref = parsed.get(body);
  // Stryker disable next-line ConditionalExpression: parsing again each time answers the same (the memo only saves work)
  if (!ref) {
    ref = parseLiteralBody(body);
    // Stryker disable next-line all: without the memo every parse is done again, with the same answer
    parsed.set(body, ref);
  }
  return ref;
}

function parseLiteralBody(body: string): LiteralRef {
  const parts = body.split('.');
  const [root] = parts;
  if (root === 'globals') return invalid(`use "%%global.${parts.slice(1).join('.')}%%" ("global", not "globals")`);
  if (root === 'global') return parseGlobal(parts);
  const [, op, member, result] = parts;
  if (op && member === 'host' && parts.length === 3) return { kind: 'opHost', op };
  if (op && member === 'results' && result && parts.length === 4) return { kind: 'opResult', op, result };
  return invalid(SUPPORTED);
}

function parseGlobal(parts: string[]): LiteralRef {
  const name = parts[1];
  if (parts.length === 2 && (GLOBAL_NAMES as readonly string[]).includes(name)) {
    return { kind: 'global', name: name as GlobalName };
  }
  if (name === 'variables' && parts.length === 3 && parts[2]) return { kind: 'variable', name: parts[2] };
  return invalid(SUPPORTED);
}

function invalid(reason: string): LiteralRef {
  return { kind: 'invalid', reason };
}
