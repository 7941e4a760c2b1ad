import { RE2JS } from 're2js';

/**
 * Result regexes run on the node over a container's logs, which the job's
 * author controls. They run on RE2 (re2js, pure JavaScript), whose matching
 * time is linear in the text whatever the pattern, so no regex can stall a
 * node. RE2 has no backreferences and no lookaround; the one form real
 * templates use, a leading lookbehind (`(?<=cmd: ).*`), is matched as a
 * prefix outside the value (see `compileResultRegex`).
 */
export interface ResultRegex {
  regex: RE2JS;
  /** The group whose text is the result's value: the author's first group, else the match (without a lookbehind prefix). */
  valueGroup: number;
}

export interface RegexVerdict {
  /** Why the regex cannot be used; absent when it compiles. */
  error?: string;
}

const cache = new Map<string, RegexVerdict>();
const CACHE_LIMIT = 2000;

/** Compiles a result regex for RE2; throws RE2's syntax error. */
export function compileResultRegex(source: string): ResultRegex {
  const lead = leadingLookbehind(source);
  if (!lead) {
    const regex = RE2JS.compile(source);
    return { regex, valueGroup: regex.groupCount() > 0 ? 1 : 0 };
  }
  // `(?<=P)R` becomes `(?:P)(R)`: group 1 is what the lookbehind form matched, the author's groups follow it.
  const regex = RE2JS.compile(`(?:${lead.prefix})(${lead.rest})`);
  return { regex, valueGroup: regex.groupCount() > 1 ? 2 : 1 };
}

export function checkRegex(source: string): RegexVerdict {
  const known = cache.get(source);
  if (known) return known;
  const verdict = analyse(source);
  // Stryker disable next-line all: the bound only limits memory; no verdict depends on it
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(source, verdict);
  return verdict;
}

function analyse(source: string): RegexVerdict {
  try {
    compileResultRegex(source);
    return {};
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (!jsAccepts(source)) return { error: `does not compile: ${reason}` };
    return {
      error: `uses syntax RE2 does not support (results run on a linear-time engine without backreferences, lookahead or lookbehind other than a leading (?<=...)): ${reason}`,
    };
  }
}

/** Whether JavaScript's engine takes it: then the author wrote a JS-only construct, which the message should say. */
function jsAccepts(source: string): boolean {
  try {
    new RegExp(source);
    return true;
    // Stryker disable next-line BlockStatement: an empty catch returns undefined, which callers read as false too
  } catch {
    return false;
  }
}

/** `(?<=prefix)rest` split in two, when the lookbehind opens the pattern and `rest` has no top-level `|`. */
function leadingLookbehind(source: string): { prefix: string; rest: string } | undefined {
  if (!source.startsWith('(?<=')) return undefined;
  const close = closingParen(source, 0);
  if (close === undefined) return undefined;
  const rest = source.slice(close + 1);
  if (topLevelBar(rest)) return undefined;
  return { prefix: source.slice(4, close), rest };
}

/** Walks the pattern's syntax: calls `visit(i, depth)` for every character outside escapes and classes; stops when it returns true. */
function scan(source: string, from: number, visit: (i: number, depth: number) => boolean): number | undefined {
  let depth = 0;
  let inClass = false;
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which no visitor matches
  for (let i = from; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    if (visit(i, depth)) return i;
  }
  return undefined;
}

function closingParen(source: string, open: number): number | undefined {
  return scan(source, open, (i, depth) => source[i] === ')' && depth === 0);
}

function topLevelBar(source: string): boolean {
  return scan(source, 0, (i, depth) => source[i] === '|' && depth === 0) !== undefined;
}
