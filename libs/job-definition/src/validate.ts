import type { Issue, ValidationResult } from './types';
import { comparePaths, isObject } from './pointer';
import { buildContext, type RuleContext, type RuleOptions } from './rules/context';
import { checkAliases, checkPorts, checkVolumes } from './rules/containers';
import { checkDependencies, checkIds } from './rules/graph';
import { checkStartable } from './rules/limits';
import { checkLiterals, checkResults, checkVariables } from './rules/references';
import { defValidator, definitionValidator } from './schema/compiled';
import { MAX_OPS } from './schema/defs-ops';
import { schemaIssues } from './schema/errors';

/**
 * Checks a job definition: its shape (the JSON Schema) and the rules across
 * ops. Returns every error and warning with a JSON pointer; never throws.
 */
export function validate(definition: unknown): ValidationResult {
  return guarded(() => {
    if (!isObject(definition)) return finish(schemaIssues(definitionValidator(), definition, ''), []);
    const ops = definition['ops'];
    // The op list is checked op by op: ajv with allErrors concatenates error
    // arrays across $refs, which is quadratic on a long list of bad ops.
    // Stryker disable next-line ConditionalExpression: checking the list in the root as well finds the same issues (deduplicated), only slower
    const shell = Array.isArray(ops) ? { ...definition, ops: [] } : definition;
    const issues = [...schemaIssues(definitionValidator(), shell, ''), ...opListIssues(ops, '/ops')];
    const global = isObject(definition['global']) ? definition['global'] : undefined;
    const variables = isObject(global?.['variables']) ? global['variables'] : {};
    const ctx = runRules(ops, {
      opsPath: '/ops',
      fragment: false,
      variables: new Set(Object.keys(variables)),
    });
    checkVariables(ctx, variables, '/global/variables');
    checkOpsPresent(ctx, definition);
    return finish([...issues, ...ctx.errors], ctx.warnings);
  });
}

export interface ValidateOpsOptions {
  /** JSON pointer of the list in the caller's document, e.g. `/templates/0/operation/ops`. Default ''. */
  pathPrefix?: string;
  /**
   * Ids of the ops of the job this list will join. Given: references to other
   * ids are errors. Absent: they are warnings, since that job is not known yet.
   */
  externalOpIds?: readonly string[];
}

/**
 * Checks a list of ops meant to join another job (benchmark templates' ops):
 * the same checks as `validate`, with references outside the list left to the
 * joined job (see `externalOpIds`).
 */
export function validateOps(ops: unknown, options: ValidateOpsOptions = {}): ValidationResult {
  return guarded(() => {
    const prefix = options.pathPrefix ?? '';
    // Stryker disable next-line ConditionalExpression: checking a list with the list schema as well finds the same issues (deduplicated), only slower
    const issues = Array.isArray(ops) ? opListIssues(ops, prefix) : schemaIssues(defValidator('opList'), ops, prefix);
    const externalOpIds = options.externalOpIds ? new Set(options.externalOpIds) : undefined;
    const ctx = runRules(ops, { opsPath: prefix, fragment: true, externalOpIds });
    return finish([...issues, ...ctx.errors], ctx.warnings);
  });
}

/**
 * A list of resource items as an op's `args.resources` takes them, checked by
 * the definition's own schema and rules (in a minimal op); paths are relative
 * to the list (`/2/IAM`).
 */
export function validateResources(items: unknown): ValidationResult {
  const checked = validateOps([{ type: 'container/run', id: 'resources', args: { image: 'resources', resources: items } }]);
  const relative = (issue: Issue): Issue => ({ ...issue, path: issue.path.replace('/0/args/resources', '') });
  return { ...checked, errors: checked.errors.map(relative), warnings: checked.warnings.map(relative) };
}

/** The list's own limit (the schema sees an empty list in its place) and each op. */
function opListIssues(ops: unknown, path: string): Issue[] {
  if (!Array.isArray(ops)) return [];
  const validator = defValidator('op');
  const issues = ops.flatMap((op: unknown, i) => schemaIssues(validator, op, `${path}/${i}`));
  if (ops.length > MAX_OPS) issues.push({ path, message: `must hold at most ${MAX_OPS} item(s)` });
  return issues;
}

function runRules(ops: unknown, options: RuleOptions): RuleContext {
  const ctx = buildContext(ops, options);
  checkIds(ctx);
  checkDependencies(ctx);
  checkVolumes(ctx);
  checkPorts(ctx);
  checkAliases(ctx);
  checkResults(ctx);
  checkLiterals(ctx);
  checkStartable(ctx);
  return ctx;
}

/** An empty op list is only meaningful for confidential jobs, whose ops come from `logistics.send`. */
function checkOpsPresent(ctx: RuleContext, definition: Record<string, unknown>): void {
  const logistics = definition['logistics'];
  const fetchesOps = isObject(logistics) && logistics['send'] !== undefined;
  if (Array.isArray(definition['ops']) && definition['ops'].length === 0 && !fetchesOps) {
    ctx.errors.push({ path: '/ops', message: 'must hold at least one op (or logistics.send for a confidential job)' });
  }
}

function finish(errors: Issue[], warnings: Issue[]): ValidationResult {
  const sortedErrors = dedupe(errors);
  return { valid: sortedErrors.length === 0, errors: sortedErrors, warnings: dedupe(warnings) };
}

function dedupe(issues: Issue[]): Issue[] {
  const seen = new Set<string>();
  const unique = issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // Stable sort: document order, then the order the checks found them.
  return unique.sort((a, b) => comparePaths(a.path, b.path));
}

/** The promise "never throws" holds even for a bug in a rule: it becomes one error. */
function guarded(run: () => ValidationResult): ValidationResult {
  try {
    return run();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { valid: false, errors: [{ path: '', message: `the definition could not be checked: ${reason}` }], warnings: [] };
  }
}
