import { parse, type AstNode as GenericNode, type CharacterClassBody } from 'regjsparser';
import safeRegex from 'safe-regex2';
import { ANY, DOT, ESCAPES, NONE, complement, findOverlap, single, union, type Ranges } from './char-sets';

/**
 * Result regexes run on the node over a container's logs, which the job's
 * author controls, so a regex that backtracks exponentially is a way to stall
 * the node. Refused (conservative, as safe-regex does):
 * - star height > 1: a repeating quantifier inside another (`(a+)+`, `(\w*x)*`);
 * - under a repeating quantifier, alternatives that can start with the same
 *   character or match empty text (`(a|ab)*`, `(\d|\w)+`, `(a|b?)+`).
 * "Repeating" means unbounded (`*`, `+`, `{n,}`) or bounded above 25.
 */
const REPEAT_LIMIT = 25;

type Features = { lookbehind: true; namedGroups: true };
const FEATURES: Features = { lookbehind: true, namedGroups: true };
type AstNode = GenericNode<Features>;

export interface RegexVerdict {
  /** The engine's message when `new RegExp(source)` throws. */
  compileError?: string;
  /** Why the regex risks catastrophic backtracking. */
  unsafe?: string;
}

const cache = new Map<string, RegexVerdict>();
const CACHE_LIMIT = 2000;

export function checkRegex(source: string): RegexVerdict {
  const known = cache.get(source);
  if (known) return known;
  const verdict = analyse(source);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(source, verdict);
  return verdict;
}

function analyse(source: string): RegexVerdict {
  try {
    new RegExp(source);
  } catch (error) {
    return { compileError: error instanceof Error ? error.message : String(error) };
  }
  let ast: AstNode;
  try {
    ast = parse(source, '', FEATURES);
  } catch {
    // regjsparser is stricter than V8's Annex B syntax; fall back to a star-height-only check.
    return safeRegex(source, { limit: Number.MAX_SAFE_INTEGER }) ? {} : { unsafe: 'nested quantifiers' };
  }
  const unsafe = walk(ast, undefined);
  return unsafe ? { unsafe } : {};
}

function repeats(node: AstNode): boolean {
  return node.type === 'quantifier' && (node.max === undefined || node.max > REPEAT_LIMIT);
}

/** First reason found to refuse `node`, given the nearest repeating quantifier around it. */
function walk(node: AstNode, repeating: AstNode | undefined): string | undefined {
  if (repeats(node) && repeating) {
    return `nested quantifiers: "${node.raw}" repeats inside "${repeating.raw}"`;
  }
  if (node.type === 'disjunction' && repeating) {
    const reason = overlappingAlternatives(node.body, repeating);
    if (reason) return reason;
  }
  const inner = repeats(node) ? node : repeating;
  for (const child of children(node)) {
    const reason = walk(child, inner);
    if (reason) return reason;
  }
  return undefined;
}

function overlappingAlternatives(alternatives: readonly AstNode[], repeating: AstNode): string | undefined {
  const firsts = alternatives.map((alt) => first(alt));
  const empty = firsts.findIndex((f) => f.nullable);
  if (empty >= 0) {
    return `alternative "${alternatives[empty].raw}" can match empty text inside repeated "${repeating.raw}"`;
  }
  const overlap = findOverlap(firsts.map((f) => f.set));
  if (!overlap) return undefined;
  const [a, b] = overlap.map((i) => alternatives[i].raw);
  return `alternatives "${a}" and "${b}" can start with the same character inside repeated "${repeating.raw}"`;
}

function children(node: AstNode): readonly AstNode[] {
  switch (node.type) {
    case 'alternative':
    case 'disjunction':
    case 'group':
    case 'quantifier':
      return node.body;
    default:
      return [];
  }
}

interface First {
  set: Ranges;
  nullable: boolean;
}

/** The characters a match of `node` can start with, and whether it can match empty text. */
function first(node: AstNode): First {
  switch (node.type) {
    case 'value':
      return { set: single(node.codePoint), nullable: false };
    case 'dot':
      return { set: DOT, nullable: false };
    case 'characterClassEscape':
      return { set: ESCAPES[node.value], nullable: false };
    case 'characterClass': {
      const set = union(...node.body.map(classItem));
      return { set: node.negative ? complement(set) : set, nullable: false };
    }
    case 'alternative':
      return sequence(node.body);
    case 'disjunction': {
      const parts = node.body.map(first);
      return { set: union(...parts.map((p) => p.set)), nullable: parts.some((p) => p.nullable) };
    }
    case 'group':
      return node.behavior === 'normal' || node.behavior === 'ignore' ? sequence(node.body) : { set: NONE, nullable: true };
    case 'quantifier': {
      const inner = first(node.body[0]);
      return { set: inner.set, nullable: inner.nullable || node.min === 0 };
    }
    case 'anchor':
      return { set: NONE, nullable: true };
    default:
      // Back-references and anything unforeseen: assume the worst.
      return { set: ANY, nullable: true };
  }
}

function sequence(body: readonly AstNode[]): First {
  let set: Ranges = NONE;
  for (const item of body) {
    const f = first(item);
    set = union(set, f.set);
    if (!f.nullable) return { set, nullable: false };
  }
  return { set, nullable: true };
}

function classItem(item: CharacterClassBody): Ranges {
  switch (item.type) {
    case 'value':
      return single(item.codePoint);
    case 'characterClassRange':
      return [[item.min.codePoint, item.max.codePoint]];
    case 'characterClassEscape':
      return ESCAPES[item.value];
    default:
      return ANY;
  }
}
