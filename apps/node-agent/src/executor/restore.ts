/** Finds this node's jobs in the engine after an agent restart: the labels are the state. */
import type Docker from 'dockerode';
import type { ContainerInspectInfo } from 'dockerode';
import type { JobContainerLimits } from '@ocg/contracts';
import type { NormalizedJobDefinition } from '@ocg/job-definition';
import { LABEL, decodeBlob, labelFilter } from '../docker/labels';
import { ignoreMissing, readNotes } from '../docker/objects';
import type { StopIntent } from './op-runner';
import type { JobAssignment, JobState } from './types';

/** What the agent decided and the engine cannot show; one note per decision. */
export type Note =
  | { kind: 'op-stopped'; op: string; attempt: number; intent: StopIntent; at: number }
  | { kind: 'op-reset'; op: string; at: number }
  | { kind: 'deadline'; deadline: number; at: number }
  | { kind: 'job-ended'; state: JobState; reason: string; at: number };

export interface AdoptedContainer {
  info: ContainerInspectInfo;
  attempt: number;
  /** A stop the agent decided for this very container. */
  intent: StopIntent | undefined;
}

export interface RestoredJob {
  assignment: JobAssignment;
  startedAt: number;
  containers: Map<string, AdoptedContainer>;
  /** Ops without a container that were ended on purpose (stopped while pending). */
  endedWithoutContainer: Map<string, StopIntent>;
  ended: { state: JobState; reason: string } | undefined;
}

/** This node's jobs; a network whose labels cannot be read is reported, not fatal. */
export async function findJobs(docker: Docker, node: string): Promise<{ jobs: RestoredJob[]; unreadable: string[] }> {
  const networks = await docker.listNetworks({ filters: labelFilter(node, { [LABEL.kind]: 'job-network' }) });
  const jobs: RestoredJob[] = [];
  const unreadable: string[] = [];
  for (const n of networks) {
    try {
      jobs.push(await restoreJob(docker, node, n.Labels ?? {}));
    } catch {
      unreadable.push(n.Name);
    }
  }
  return { jobs, unreadable };
}

async function restoreJob(docker: Docker, node: string, labels: Record<string, string>): Promise<RestoredJob> {
  const job = labels[LABEL.job];
  const notes = (await readNotes<Note>(docker, node, job)).sort((a, b) => a.at - b.at);
  let deadline = Number(labels[LABEL.deadline]);
  for (const n of notes) if (n.kind === 'deadline') deadline = n.deadline;
  const definition = decodeBlob<NormalizedJobDefinition>(labels[LABEL.definition]);
  const containers = await latestContainers(docker, node, job, notes);
  const ended = notes.filter((n) => n.kind === 'job-ended').pop();
  return {
    assignment: {
      job,
      poster: labels[LABEL.poster],
      definition,
      deadline,
      ...(labels[LABEL.limits] ? { containerLimits: JSON.parse(labels[LABEL.limits]) as JobContainerLimits } : {}),
    },
    startedAt: Number(labels[LABEL.startedAt]),
    containers,
    endedWithoutContainer: stoppedWhilePending(notes, containers),
    ended: ended ? { state: ended.state, reason: ended.reason } : undefined,
  };
}

/** One container per op: the latest attempt; older ones (a crash mid-restart) are removed. */
async function latestContainers(docker: Docker, node: string, job: string, notes: Note[]): Promise<Map<string, AdoptedContainer>> {
  const list = await docker.listContainers({ all: true, filters: labelFilter(node, { [LABEL.job]: job, [LABEL.kind]: 'op-container' }) });
  list.sort((a, b) => Number(b.Labels[LABEL.attempt]) - Number(a.Labels[LABEL.attempt]));
  const out = new Map<string, AdoptedContainer>();
  for (const c of list) {
    const op = c.Labels[LABEL.op];
    if (out.has(op)) {
      await ignoreMissing(docker.getContainer(c.Id).remove({ force: true }));
      continue;
    }
    const attempt = Number(c.Labels[LABEL.attempt]);
    const stop = notes.filter((n) => n.kind === 'op-stopped' && n.op === op && n.attempt === attempt).pop();
    const info = await docker.getContainer(c.Id).inspect();
    out.set(op, { info, attempt, intent: stop?.kind === 'op-stopped' ? stop.intent : undefined });
  }
  return out;
}

function stoppedWhilePending(notes: Note[], containers: Map<string, AdoptedContainer>): Map<string, StopIntent> {
  const latest = new Map<string, Note>();
  for (const n of notes) if ((n.kind === 'op-stopped' || n.kind === 'op-reset') && !containers.has(n.op)) latest.set(n.op, n);
  const out = new Map<string, StopIntent>();
  for (const [op, n] of latest) if (n.kind === 'op-stopped') out.set(op, n.intent);
  return out;
}
