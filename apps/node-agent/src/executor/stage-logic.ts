/**
 * The stage and dependency rules of ARCHITECTURE.md ("Running a job on a
 * node") as one pure function: given the plan, what each op looks like now
 * and the stage reached, what to do next. The JobRunner applies the actions
 * and asks again whenever anything changes.
 */
import type { StagePlan } from '@ocg/job-definition';
import { reasons } from './reasons';
import type { OpState } from './types';

export interface OpView {
  state: OpState;
  /** Starting (pulling, creating): neither pending-and-idle nor running yet. */
  busy: boolean;
  released: boolean;
  reason: string | null;
}

export type Action =
  | { kind: 'advance'; stage: number }
  | { kind: 'start'; op: string }
  | { kind: 'fail'; op: string; reason: string }
  | { kind: 'stop'; op: string; reason: string }
  | { kind: 'end'; state: 'completed' | 'failed'; reason: string };

const TERMINAL: ReadonlySet<OpState> = new Set(['completed', 'failed', 'stopped']);
export const isTerminal = (state: OpState): boolean => TERMINAL.has(state);

/** The plan and the views come from the same definition: every planned id has a view. */
function viewOf(ops: ReadonlyMap<string, OpView>, id: string): OpView {
  const view = ops.get(id);
  if (!view) throw new Error(`no view of op ${id}`);
  return view;
}

export function decide(plan: StagePlan, ops: ReadonlyMap<string, OpView>, reached: number): Action[] {
  const view = (id: string): OpView => viewOf(ops, id);
  const failed = plan.ops.find((p) => view(p.id).state === 'failed');
  if (failed) {
    // A failed op fails the job and later stages do not start; its waiting dependents fail with the reason first.
    const reason = `op ${failed.id} failed: ${view(failed.id).reason ?? 'unknown reason'}`;
    return [...failDependents(plan, ops, reached), { kind: 'end', state: 'failed', reason }];
  }
  if (plan.ops.every((p) => isTerminal(view(p.id).state))) return [{ kind: 'end', state: 'completed', reason: 'every op ended' }];

  let stage = reached;
  const actions: Action[] = [];
  while (stage < plan.stages.length - 1 && stageReady(plan, ops, stage)) actions.push({ kind: 'advance', stage: ++stage });
  actions.push(...failDependents(plan, ops, stage));

  for (const p of plan.ops) {
    if (p.stage > stage) continue;
    const op = view(p.id);
    const ended = p.dependsOn.find((d) => isTerminal(view(d).state));
    const unreleased = p.dependsOn.some((d) => isTerminal(view(d).state) && !view(d).released);
    if (op.state === 'pending' && !op.busy) {
      if (unreleased) continue; // failed by failDependents
      if (p.stopIfDependentStops && ended) actions.push({ kind: 'stop', op: p.id, reason: reasons.dependentStopped(ended) });
      else if (p.dependsOn.every((d) => view(d).released)) actions.push({ kind: 'start', op: p.id });
    } else if ((op.state === 'running' || op.busy) && p.stopIfDependentStops && ended) {
      actions.push({ kind: 'stop', op: p.id, reason: reasons.dependentStopped(ended) });
    }
  }
  if (actions.length === 0 && !plan.ops.some((p) => view(p.id).state === 'running' || view(p.id).busy)) {
    return [{ kind: 'end', state: 'failed', reason: stuckReason(plan, ops, stage) }];
  }
  return actions;
}

/** Pending ops of the stages reached whose dependency ended before it was released. */
function failDependents(plan: StagePlan, ops: ReadonlyMap<string, OpView>, reached: number): Action[] {
  const actions: Action[] = [];
  for (const p of plan.ops) {
    const op = viewOf(ops, p.id);
    if (p.stage > reached || op.state !== 'pending' || op.busy) continue;
    const dep = p.dependsOn.map((d) => ({ id: d, ...viewOf(ops, d) })).find((d) => isTerminal(d.state) && !d.released);
    if (dep) actions.push({ kind: 'fail', op: p.id, reason: reasons.dependencyEnded(dep.id, dep.state, dep.reason) });
  }
  return actions;
}

/** Ready: its ops with ports were released (healthy once), its other ops ended. */
export function stageReady(plan: StagePlan, ops: ReadonlyMap<string, OpView>, index: number): boolean {
  const { healthy, ended } = plan.stages[index].readyWhen;
  return healthy.every((id) => viewOf(ops, id).released) && ended.every((id) => isTerminal(viewOf(ops, id).state));
}

/** Nothing runs and nothing can start: name what the stage still waits for. */
function stuckReason(plan: StagePlan, ops: ReadonlyMap<string, OpView>, index: number): string {
  const stage = plan.stages[index];
  const missing = stage.readyWhen.healthy.filter((id) => !viewOf(ops, id).released).map((id) => `${id} ${viewOf(ops, id).state} before its ports were ready`);
  return `stage ${stage.name} can never become ready${missing.length ? `: ${missing.join('; ')}` : ''}`;
}

/** The stage an adopted job had reached: the last one with an op that left pending. */
export function reachedStage(plan: StagePlan, ops: ReadonlyMap<string, OpView>): number {
  let reached = 0;
  for (const p of plan.ops) if (viewOf(ops, p.id).state !== 'pending') reached = Math.max(reached, p.stage);
  return reached;
}
