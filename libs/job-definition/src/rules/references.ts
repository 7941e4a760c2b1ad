import { findLiterals, wholeLiteral, type LiteralRef } from '../literals';
import { childPath, hasOwn, isObject } from '../pointer';
import { checkRegex } from '../regex/re2';
import { MAX_REGEX_LENGTH } from '../schema/defs-ops';
import { quote } from '../text';
import { lookupOp, stageName, type OpView, type RuleContext } from './context';

/** Every literal in an op's args names something that exists, and results come from earlier stages. */
export function checkLiterals(ctx: RuleContext): void {
  for (const view of ctx.ops) {
    if (!view.args) continue;
    forEachLiteralString(view.args, `${view.path}/args`, (text, path) => {
      for (const { raw, ref } of findLiterals(text)) checkLiteral(ctx, view, raw, ref, path);
    });
    const env = view.args['env'];
    if (isObject(env) && typeof env['__spread__'] === 'string' && !wholeLiteral(env['__spread__'])) {
      ctx.errors.push({
        path: `${view.path}/args/env/__spread__`,
        message: 'must be one literal such as "%%ops.<id>.results.<name>%%": its JSON object is merged into env',
      });
    }
  }
}

function checkLiteral(ctx: RuleContext, view: OpView, raw: string, ref: LiteralRef, path: string): void {
  switch (ref.kind) {
    case 'invalid':
      return literalError(ctx, path, raw, `unknown literal; ${ref.reason}`);
    case 'variable':
      if (ctx.variables && !ctx.variables.has(ref.name)) literalError(ctx, path, raw, `no variable ${quote(ref.name)} in global.variables`);
      return;
    case 'opHost':
      lookupOp(ctx, ref.op, path);
      return;
    case 'opResult':
      return checkResultLiteral(ctx, view, raw, ref, path);
    case 'global':
      return;
  }
}

function checkResultLiteral(ctx: RuleContext, view: OpView, raw: string, ref: { op: string; result: string }, path: string): void {
  const target = lookupOp(ctx, ref.op, path);
  if (!target) return;
  if (!target.results || !hasOwn(target.results, ref.result)) {
    literalError(ctx, path, raw, `op ${quote(ref.op)} has no result ${quote(ref.result)}`);
  } else if (target.stage >= view.stage) {
    const where = stageName(ctx, target.stage);
    literalError(ctx, path, raw, `results of op ${quote(ref.op)} are known only once its stage is done, so it must run in an earlier stage than this op (it runs in ${where})`);
  }
}

function literalError(ctx: RuleContext, path: string, raw: string, message: string): void {
  ctx.errors.push({ path, message: `${raw}: ${message}` });
}

/** Literals in variable values would be resolved twice; only node-time globals may appear there. */
export function checkVariables(ctx: RuleContext, variables: unknown, path: string): void {
  if (!isObject(variables)) return;
  for (const [name, value] of Object.entries(variables)) {
    if (typeof value !== 'string') continue;
    for (const { raw, ref } of findLiterals(value)) {
      if (ref.kind === 'global') continue;
      ctx.errors.push({
        path: childPath(path, name),
        message: `${raw}: a variable may only use %%global.job%%, %%global.host%% or %%global.node%%`,
      });
    }
  }
}

/**
 * Result regexes run on RE2 (linear time, see regex/re2.ts). One RE2 cannot
 * compile is an error: its result could never be captured, which the poster
 * wants to hear before paying.
 */
export function checkResults(ctx: RuleContext): void {
  for (const view of ctx.ops) {
    if (!view.results) continue;
    for (const [name, result] of Object.entries(view.results)) {
      const base = childPath(`${view.path}/results`, name);
      const [source, path] = isObject(result) ? [result['regex'], `${base}/regex`] : [result, base];
      // Stryker disable next-line ConditionalExpression: RE2 compiles the empty regex, so checking it answers the same (the schema refuses it)
      if (typeof source !== 'string' || source.length === 0 || source.length > MAX_REGEX_LENGTH) continue;
      const verdict = checkRegex(source);
      if (verdict.error) ctx.errors.push({ path, message: `${verdict.error}; this result could never be captured` });
    }
  }
}

/**
 * Visits every string under `root` that contains "%%", with its pointer.
 * Iterative and cycle-safe for any input; pointers are built only for
 * containers and matching strings, since most strings hold no literal.
 */
export function forEachLiteralString(root: object, rootPath: string, visit: (text: string, path: string) => void): void {
  const seen = new Set<object>([root]);
  const stack: Array<[object, string]> = [[root, rootPath]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [value, path] = top;
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    const length = keys ? keys.length : (value as unknown[]).length;
    for (let i = 0; i < length; i++) {
      const key = keys ? keys[i] : i;
      const child = (value as Record<string | number, unknown>)[key];
      if (typeof child === 'string') {
        // Stryker disable next-line ConditionalExpression,StringLiteral: a string without "%%" holds no literal; skipping it only saves its pointer
        if (child.includes('%%')) visit(child, childPath(path, key));
        // Object(x) === x: x is an object or array (not null, not a primitive)
      } else if (Object(child) === child && !seen.has(child as object)) {
        seen.add(child as object);
        stack.push([child as object, childPath(path, key)]);
      }
    }
  }
}
