import type { Issue } from './types';
import type { NormalizedJobDefinition, NormalizedOp } from './normalized-types';
import { findLiterals, replaceLiterals, wholeLiteral, type LiteralRef } from './literals';
import { normalizeOp } from './normalize';
import { childPath, hasOwn, isObject, setMember } from './pointer';
import { defValidator } from './schema/compiled';
import { schemaIssues } from './schema/errors';

/** What the node knows when it starts an op. Anything missing leaves its literals in place. */
export interface LiteralContext {
  /** `%%global.job%%`: the job address. */
  job?: string;
  /** `%%global.host%%`: the job's public host name. */
  host?: string;
  /** `%%global.node%%`: the node's address. */
  node?: string;
  /** `%%ops.<id>.results.<name>%%`: captured values by op id and result name (one per match). */
  results?: Readonly<Record<string, Readonly<Record<string, string | readonly string[]>>>>;
}

/** A spread whose value is not JSON of the right shape: the op cannot start. */
export class LiteralResolutionError extends Error {
  constructor(readonly issues: Issue[]) {
    super(issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '));
    this.name = 'LiteralResolutionError';
  }
}

type Values = (ref: LiteralRef) => readonly string[] | undefined;

/**
 * Resolves the literals `context` has values for, expands spreads whose value
 * is known, and re-normalizes. Call again as more results arrive; an op is
 * ready when `unresolvedLiterals(op)` is empty. A result with several values:
 * in a string, joined with a space; as a whole array item, one item each; in a
 * spread, each value is parsed as JSON (chunked: joined, then parsed once).
 * Throws LiteralResolutionError when a spread yields invalid content.
 */
export function resolveLiterals(definition: NormalizedJobDefinition, context: LiteralContext): NormalizedJobDefinition {
  const values = valueSource(definition, context);
  const issues: Issue[] = [];
  const ops = definition.ops.map((op, i) => {
    const args = expand(op.args, values, issues, `/ops/${i}/args`);
    return normalizeOp({ ...op, args } as unknown as Record<string, unknown>);
  });
  if (issues.length > 0) throw new LiteralResolutionError(issues);
  return { ...definition, ops };
}

/**
 * One op of the definition with its literals resolved: what starting one op
 * needs (resolving every op at each start costs O(ops²) over a large group).
 */
export function resolveOpLiterals(definition: NormalizedJobDefinition, index: number, context: LiteralContext): NormalizedOp {
  const values = valueSource(definition, context);
  const issues: Issue[] = [];
  const op = definition.ops[index];
  const args = expand(op.args, values, issues, `/ops/${index}/args`);
  if (issues.length > 0) throw new LiteralResolutionError(issues);
  return normalizeOp({ ...op, args } as unknown as Record<string, unknown>);
}

/** The literals still present in any value (an op, its args, a whole definition). */
export function unresolvedLiterals(value: unknown): string[] {
  const found = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') for (const match of findLiterals(v)) found.add(match.raw);
    else if (Array.isArray(v)) v.forEach(visit);
    else if (isObject(v)) Object.values(v).forEach(visit);
  };
  visit(value);
  return [...found];
}

function valueSource(definition: NormalizedJobDefinition, context: LiteralContext): Values {
  const ids = new Set(definition.ops.map((op) => op.id));
  const { variables } = definition.global;
  return (ref) => {
    switch (ref.kind) {
      case 'global':
        return typeof context[ref.name] === 'string' ? [context[ref.name] as string] : undefined;
      case 'variable':
        return hasOwn(variables, ref.name) ? [variables[ref.name]] : undefined;
      case 'opHost':
        return ids.has(ref.op) ? [ref.op] : undefined;
      case 'opResult': {
        const byName = context.results?.[ref.op];
        const value = byName && hasOwn(byName, ref.result) ? byName[ref.result] : undefined;
        return typeof value === 'string' ? [value] : value;
      }
      default:
        return undefined;
    }
  };
}

function expand(value: unknown, values: Values, issues: Issue[], path: string): unknown {
  if (typeof value === 'string') return replaceLiterals(value, (ref) => values(ref)?.join(' '));
  if (Array.isArray(value)) return value.flatMap((item, i) => expandItem(item, values, issues, childPath(path, i)));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key !== '__spread__') {
      setMember(out, key, expand(member, values, issues, childPath(path, key)));
      continue;
    }
    for (const [name, v] of Object.entries(spreadObject(member, values, issues, childPath(path, key)))) setMember(out, name, v);
  }
  return out;
}

/** One array item becomes zero or more items. */
function expandItem(item: unknown, values: Values, issues: Issue[], path: string): unknown[] {
  const literal = typeof item === 'string' ? wholeLiteral(item) : undefined;
  if (literal) return [...(values(literal.ref) ?? [item])];
  if (isObject(item) && typeof item['__spread__'] === 'string') {
    const parsed = parseSpread(item, values, issues, path);
    if (!parsed) return [item];
    const list = parsed.flatMap((p) => (Array.isArray(p) ? p : [p]));
    const kind = /\/expose\/\d+$/.test(path) ? 'exposeEntry' : 'resourceItem';
    const problems = list.flatMap((entry) => schemaIssues(defValidator(kind), entry, path));
    issues.push(...problems.map((p) => ({ ...p, message: `from ${String(item['__spread__'])}: ${p.message}` })));
    return list;
  }
  return [expand(item, values, issues, path)];
}

function spreadObject(literalText: unknown, values: Values, issues: Issue[], path: string): Record<string, unknown> {
  const parsed = parseSpread({ __spread__: literalText }, values, issues, path);
  if (!parsed) return { __spread__: literalText };
  const merged: Record<string, unknown> = {};
  for (const part of parsed) {
    if (!isObject(part) || Object.values(part).some((v) => typeof v !== 'string')) {
      issues.push({ path, message: `${String(literalText)} must resolve to a JSON object of strings` });
      continue;
    }
    for (const [name, v] of Object.entries(part)) setMember(merged, name, v);
  }
  return merged;
}

/** The parsed JSON values of a spread, or undefined while its literal has no value yet. */
function parseSpread(marker: Record<string, unknown>, values: Values, issues: Issue[], path: string): unknown[] | undefined {
  const literal = typeof marker['__spread__'] === 'string' ? wholeLiteral(marker['__spread__']) : undefined;
  const texts = literal ? values(literal.ref) : undefined;
  if (!literal || !texts) return undefined;
  const chunks = marker['chunked'] === true ? [texts.join('')] : texts;
  const parsed: unknown[] = [];
  for (const text of chunks) {
    try {
      parsed.push(JSON.parse(text));
    } catch (error) {
      issues.push({ path, message: `${literal.raw} is not JSON: ${(error as Error).message}` });
    }
  }
  return parsed;
}
