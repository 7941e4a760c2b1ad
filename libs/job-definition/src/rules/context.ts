import type { Issue } from '../types';
import { childPath, isObject } from '../pointer';
import { didYouMean, quote } from '../text';

/**
 * What the cross-op rules see of each op. Built defensively from unknown
 * input: the rules run even when the schema failed, so one bad member does not
 * hide every reference error, and they must never throw.
 */
export interface OpView {
  index: number;
  /** JSON pointer of the op. */
  path: string;
  id?: string;
  type?: unknown;
  args?: Record<string, unknown>;
  execution?: Record<string, unknown>;
  results?: Record<string, unknown>;
  group: string | null;
  stage: number;
}

export interface RuleOptions {
  /** JSON pointer of the ops array. */
  opsPath: string;
  /** Validating a list of ops that will join another job (benchmark templates). */
  fragment: boolean;
  /** Fragment only: ids the joined job provides; without it, outside ids are warnings. */
  externalOpIds?: ReadonlySet<string>;
  /** Names in `global.variables`; undefined when unknown (fragments). */
  variables?: ReadonlySet<string>;
}

export interface RuleContext extends RuleOptions {
  ops: OpView[];
  byId: Map<string, OpView>;
  stageGroups: Array<string | null>;
  errors: Issue[];
  warnings: Issue[];
}

export function buildContext(ops: unknown, options: RuleOptions): RuleContext {
  const ctx: RuleContext = { ...options, ops: [], byId: new Map(), stageGroups: [], errors: [], warnings: [] };
  if (!Array.isArray(ops)) return ctx;
  // null (no group) is never set: each op without a group gets a stage of its own
  const stageOfGroup = new Map<string | null, number>();
  ops.forEach((raw: unknown, index) => {
    if (!isObject(raw)) return;
    const execution = objectOrUndefined(raw['execution']);
    const group = typeof execution?.['group'] === 'string' ? execution['group'] : null;
    let stage = stageOfGroup.get(group);
    if (stage === undefined) {
      stage = ctx.stageGroups.push(group) - 1;
      if (group !== null) stageOfGroup.set(group, stage);
    }
    const view: OpView = {
      index,
      path: childPath(options.opsPath, index),
      id: typeof raw['id'] === 'string' ? raw['id'] : undefined,
      type: raw['type'],
      args: objectOrUndefined(raw['args']),
      execution,
      results: objectOrUndefined(raw['results']),
      group,
      stage,
    };
    ctx.ops.push(view);
    if (view.id !== undefined && !ctx.byId.has(view.id)) ctx.byId.set(view.id, view);
  });
  return ctx;
}

function objectOrUndefined(value: unknown): Record<string, unknown> | undefined {
  return isObject(value) ? value : undefined;
}

/** How messages name an op: its id, or its pointer when it has none (the schema reports that). */
export function opLabel(view: OpView): string {
  return view.id === undefined ? view.path : quote(view.id);
}

export function stageName(ctx: RuleContext, stage: number): string {
  const group = ctx.stageGroups[stage];
  return group === null ? 'a stage of its own' : `group ${quote(group)}`;
}

/**
 * The op a reference names, or undefined after reporting why not. In a
 * fragment, ids from outside the list are the joined job's business.
 */
export function lookupOp(ctx: RuleContext, id: string, path: string): OpView | undefined {
  const found = ctx.byId.get(id);
  if (found) return found;
  if (ctx.fragment) {
    if (ctx.externalOpIds?.has(id)) return undefined;
    if (!ctx.externalOpIds) {
      ctx.warnings.push({ path, message: `op ${quote(id)} is not in this list; the job these ops join must provide it` });
      return undefined;
    }
  }
  ctx.errors.push({ path, message: `unknown op id ${quote(id)}${didYouMean(id, ctx.byId.keys())}` });
  return undefined;
}

/** Whether an op exposes ports (after the schema, any non-empty expose). */
export function exposesPorts(view: OpView): boolean {
  const expose = view.args?.['expose'];
  return Array.isArray(expose) ? expose.length > 0 : expose !== undefined && expose !== null;
}

/** The op's dependency references with their paths: `execution.depends_on` then `args.depends`. */
export function dependencyRefs(view: OpView): Array<{ id: string; path: string }> {
  const refs: Array<{ id: string; path: string }> = [];
  const add = (list: unknown, path: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((id: unknown, i) => {
      if (typeof id === 'string') refs.push({ id, path: childPath(path, i) });
    });
  };
  add(view.execution?.['depends_on'], `${view.path}/execution/depends_on`);
  add(view.args?.['depends'], `${view.path}/args/depends`);
  return refs;
}
