/**
 * JsonLogic rules are stored as JSON and evaluated elsewhere (no JsonLogic
 * package here), so apply checks only their shape: every object is an
 * operation, an object with exactly one key (the operator), whose operands
 * are rules too. Data literals that are objects do not exist in JsonLogic.
 */
import type { FieldError } from '@ocg/contracts';

const MAX_DEPTH = 32;
const OPERATOR = /^\S(?:.*\S)?$/;

/** Problems with a rule at `path`; empty when its shape is a valid JsonLogic rule. */
export function jsonLogicProblems(rule: unknown, path: string): FieldError[] {
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) {
    return [{ path, message: 'must be a JsonLogic rule: an object with one operator, e.g. {">=": [{"var": "tokens_per_second"}, 20]}' }];
  }
  return operandProblems(rule, path, 0);
}

function operandProblems(value: unknown, path: string, depth: number): FieldError[] {
  if (depth > MAX_DEPTH) return [{ path, message: `nests deeper than ${MAX_DEPTH} levels` }];
  if (Array.isArray(value)) return value.flatMap((item, i) => operandProblems(item, `${path}/${i}`, depth + 1));
  if (value === null || typeof value !== 'object') return [];
  const keys = Object.keys(value);
  if (keys.length !== 1) return [{ path, message: `must have exactly one operator, found ${keys.length} members` }];
  const operator = keys[0];
  if (!OPERATOR.test(operator)) return [{ path, message: `operator ${JSON.stringify(operator)} is not an operator name` }];
  return operandProblems((value as Record<string, unknown>)[operator], `${path}/${escape(operator)}`, depth + 1);
}

/** JSON pointer escaping of one segment. */
export function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The rule used when a template names no rule: the metric has a value. */
export function defaultRule(metric: string): Record<string, unknown> {
  return { '!=': [{ var: metric }, null] };
}
