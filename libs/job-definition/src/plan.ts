import type { NormalizedJobDefinition, NormalizedOp } from './normalized-types';

/**
 * How the node runs a job (ARCHITECTURE.md, "Running a job on a node"):
 * stages one at a time, in order; inside a stage an op starts once every op it
 * depends on is released; the stage is ready when its ops with exposed ports
 * are healthy and its other ops have ended. A failed op fails the job.
 */
export interface StagePlan {
  stages: PlannedStage[];
  /** Every op, in definition order. */
  ops: PlannedOp[];
}

export interface PlannedStage {
  index: number;
  /** Unique: the group, or for an op without a group its id (suffixed if a group has that name). */
  name: string;
  /** null: a single op without execution.group. */
  group: string | null;
  /** In definition order. */
  opIds: string[];
  /** The stage is ready when each of `healthy` is released as healthy and each of `ended` has ended. */
  readyWhen: { healthy: string[]; ended: string[] };
}

/** When an op counts as released for the ops that depend on it. */
export type OpRelease =
  /** Each port passes its startup health checks (none listed: it accepts TCP connections). */
  | { kind: 'healthy'; ports: Array<number | string> }
  /** Its container has started. */
  | { kind: 'started' };

export interface PlannedOp {
  id: string;
  /** Index in the definition's ops. */
  opIndex: number;
  stage: number;
  /** Ops that must be released before this op starts (same or earlier stages). */
  dependsOn: string[];
  release: OpRelease;
  /** Stop this op when any op of `dependsOn` ends (completes, fails or is stopped). */
  stopIfDependentStops: boolean;
  timeoutSeconds: number | null;
}

/** Pure: the same normalized definition always gives the same plan. */
export function planStages(definition: NormalizedJobDefinition): StagePlan {
  const stages: PlannedStage[] = [];
  const stageOfGroup = new Map<string | null, PlannedStage>();
  // null among them never equals a name
  const groups = new Set(definition.ops.map((op) => op.execution.group));
  const names = new Set<string>();
  const ops = definition.ops.map((op, opIndex): PlannedOp => {
    const group = op.execution.group;
    let stage = stageOfGroup.get(group);
    if (!stage) {
      stage = newStage(stages.length, group ?? uniqueName(op.id, groups, names), group);
      stages.push(stage);
      names.add(stage.name);
      if (group !== null) stageOfGroup.set(group, stage);
    }
    const release = releaseOf(op);
    stage.opIds.push(op.id);
    (release.kind === 'healthy' ? stage.readyWhen.healthy : stage.readyWhen.ended).push(op.id);
    return {
      id: op.id,
      opIndex,
      stage: stage.index,
      dependsOn: [...op.execution.depends_on],
      release,
      stopIfDependentStops: op.execution.stop_if_dependent_stops,
      timeoutSeconds: op.execution.timeout,
    };
  });
  return { stages, ops };
}

function newStage(index: number, name: string, group: string | null): PlannedStage {
  return { index, name, group, opIds: [], readyWhen: { healthy: [], ended: [] } };
}

function uniqueName(id: string, groups: ReadonlySet<string | null>, taken: ReadonlySet<string>): string {
  let name = id;
  for (let n = 2; groups.has(name) || taken.has(name); n++) name = `${id}-${n}`;
  return name;
}

/** Spread entries count as ports: their literal stands in until the node resolves it. */
function releaseOf(op: NormalizedOp): OpRelease {
  if (op.type !== 'container/run' || op.args.expose.length === 0) return { kind: 'started' };
  const ports = op.args.expose.map((entry) => ('__spread__' in entry ? entry.__spread__ : entry.port));
  return { kind: 'healthy', ports };
}
