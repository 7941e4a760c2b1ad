/**
 * Stop and restart of ops and groups through the node API. A group is a
 * stage name: the execution.group, or an ungrouped op's own stage (its id).
 */
import { conflict, invalid, notFound } from './errors';
import type { JobRunner } from './job-runner';
import type { OpRunner } from './op-runner';
import { reasons } from './reasons';

const USER_STOP = { state: 'stopped', reason: reasons.userStop() } as const;

export async function stopOp(runner: JobRunner, group: string, opId: string): Promise<OpRunner[]> {
  const op = opInGroup(runner, group, opId);
  if (!isActive(op)) throw conflict(`op ${op.id} is not running (it is ${op.state})`);
  await runner.stopOp(op, USER_STOP);
  return [op];
}

export async function restartOp(runner: JobRunner, group: string, opId: string): Promise<OpRunner[]> {
  const op = opInGroup(runner, group, opId);
  if (op.plan.stage > runner.reached) throw conflict(`op ${op.id} has not started yet: stage ${group} has not been reached`);
  if (op.busy) throw conflict(`op ${op.id} is starting; restart it once it runs`);
  await restart(runner, [op]);
  return [op];
}

export async function stopGroup(runner: JobRunner, group: string): Promise<OpRunner[]> {
  const ops = groupOps(runner, group);
  if (!ops.some(isActive)) throw conflict(`group ${group} is not running (${describe(ops)})`);
  // Pending ops first: otherwise they would fail as dependents of ops stopped before release.
  const pending = ops.filter((o) => o.state === 'pending' && !o.busy && o.plan.stage <= runner.reached);
  await Promise.all(pending.map((o) => runner.stopOp(o, USER_STOP)));
  await Promise.all(ops.filter(isActive).map((o) => runner.stopOp(o, USER_STOP)));
  return ops;
}

export async function restartGroup(runner: JobRunner, group: string): Promise<OpRunner[]> {
  const ops = groupOps(runner, group);
  if (ops[0].plan.stage > runner.reached) throw conflict(`group ${group} has not started yet: an earlier stage is still running`);
  if (ops.some((o) => o.busy)) throw conflict(`group ${group} has an op that is starting; restart it once it runs`);
  await restart(runner, ops);
  return ops;
}

async function restart(runner: JobRunner, ops: OpRunner[]): Promise<void> {
  await Promise.all(
    ops.map(async (op) => {
      await runner.note({ kind: 'op-reset', op: op.id, at: Date.now() });
      await op.reset();
    }),
  );
  runner.scheduleTick();
}

function isActive(op: OpRunner): boolean {
  return op.state === 'running' || op.busy;
}

function groupOps(runner: JobRunner, group: string): OpRunner[] {
  const ops = runner.ops.filter((o) => o.group === group);
  if (ops.length === 0) throw notFound(`job ${runner.job} has no group ${group} (groups: ${stageNames(runner)})`);
  return ops;
}

function opInGroup(runner: JobRunner, group: string, opId: string): OpRunner {
  const ops = groupOps(runner, group);
  const op = runner.op(opId);
  if (!op) throw notFound(`job ${runner.job} has no op ${opId}`);
  if (!ops.includes(op)) throw invalid(`op ${opId} is not in group ${group}: it is in group ${op.group}`);
  return op;
}

function describe(ops: OpRunner[]): string {
  return ops.map((o) => `${o.id} ${o.state}`).join(', ');
}

function stageNames(runner: JobRunner): string {
  return runner.plan.stages.map((s) => s.name).join(', ');
}
