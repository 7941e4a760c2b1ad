/** The job's network and volumes, and removing everything a job made. */
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { JobContainerLimits } from '@ocg/contracts';
import { engineMessage, statusOf } from './client';
import { LABEL, jobLabels, labelFilter, names } from './labels';

export interface JobNetworkLabels {
  poster: string;
  deadline: number;
  startedAt: number;
  /** encodeBlob of the normalized definition. */
  definition: string;
  /** The market's container limits from the claim: a restarted agent restarts ops within them, not the node's own. */
  containerLimits?: JobContainerLimits;
}

/** Creates the job's bridge network, or returns the existing one (run is idempotent). */
export async function ensureJobNetwork(docker: Docker, node: string, job: string, meta: JobNetworkLabels): Promise<string> {
  const name = names.network(job);
  const labels = {
    ...jobLabels(node, job, 'job-network'),
    [LABEL.poster]: meta.poster,
    [LABEL.deadline]: String(meta.deadline),
    [LABEL.startedAt]: String(meta.startedAt),
    [LABEL.definition]: meta.definition,
    ...(meta.containerLimits ? { [LABEL.limits]: JSON.stringify(meta.containerLimits) } : {}),
  };
  try {
    await docker.createNetwork({ Name: name, Driver: 'bridge', Labels: labels, CheckDuplicate: true });
  } catch (err) {
    if (statusOf(err) !== 409) throw new Error(`could not create the job network: ${engineMessage(err)}`);
    await assertOurs(docker.getNetwork(name).inspect(), node, `network ${name}`);
  }
  return name;
}

/** Idempotent: Docker returns the existing volume of that name. */
export async function ensureVolume(docker: Docker, node: string, job: string, name: string): Promise<string> {
  const volume = names.volume(job, name);
  await docker.createVolume({ Name: volume, Labels: jobLabels(node, job, 'job-volume') });
  return volume;
}

/**
 * Notes are empty volumes whose labels record what the agent decided and the
 * engine cannot show (a user stop, a new deadline, the job's end): labels are
 * immutable, so each decision is a new object, removed with the job.
 */
export async function writeNote(docker: Docker, node: string, job: string, note: object): Promise<void> {
  const labels = { ...jobLabels(node, job, 'note'), [LABEL.note]: JSON.stringify(note) };
  await docker.createVolume({ Name: names.note(job, randomBytes(6).toString('hex')), Labels: labels });
}

export async function readNotes<T>(docker: Docker, node: string, job: string): Promise<T[]> {
  const { Volumes } = await docker.listVolumes({ filters: labelFilter(node, { [LABEL.job]: job, [LABEL.kind]: 'note' }) });
  return (Volumes ?? []).map((v) => JSON.parse(v.Labels[LABEL.note] ?? '{}') as T);
}

/** At most `size` at once (a `Pool` of the executor), or all at once without one. */
export interface Limiter {
  all<I, T>(items: I[], work: (item: I) => Promise<T>): Promise<T[]>;
}

const unbounded: Limiter = { all: (items, work) => Promise.all(items.map(work)) };

/**
 * Removes every container, volume and network of the job: what a restart or
 * a crash left too. Notes go last: while the network is there, they tell a
 * restarted agent that the job ended (without them it would be adopted again).
 */
export async function removeJobObjects(docker: Docker, node: string, job: string, limiter: Limiter = unbounded): Promise<void> {
  const filters = labelFilter(node, { [LABEL.job]: job });
  const errors: string[] = [];
  // Each removal goes ahead whatever the others do: a volume still in use must not keep the network.
  const attempt = (work: Promise<unknown>) => ignoreMissing(work).catch((err: unknown) => void errors.push(engineMessage(err)));
  const containers = await docker.listContainers({ all: true, filters });
  await limiter.all(containers, (c) => attempt(docker.getContainer(c.Id).remove({ force: true, v: true })));
  const { Volumes } = await docker.listVolumes({ filters });
  const isNote = (v: { Labels: Record<string, string> | null }) => v.Labels?.[LABEL.kind] === 'note';
  await limiter.all(
    (Volumes ?? []).filter((v) => !isNote(v)),
    (v) => attempt(docker.getVolume(v.Name).remove()),
  );
  const networks = await docker.listNetworks({ filters });
  await Promise.all(networks.map((n) => attempt(removeNetwork(docker, n.Id))));
  if (errors.length > 0) throw new Error(`${errors.length} objects of job ${job} could not be removed: ${errors[0]}`);
  await limiter.all((Volumes ?? []).filter(isNote), (v) => ignoreMissing(docker.getVolume(v.Name).remove()));
}

/**
 * Jobs of this node with objects in the engine but no job network: what a
 * cleanup interrupted by an agent restart left (the network carries the job,
 * so without it no agent would ever adopt or remove them).
 */
export async function orphanedJobs(docker: Docker, node: string): Promise<string[]> {
  const filters = labelFilter(node);
  const [containers, { Volumes }, networks] = await Promise.all([docker.listContainers({ all: true, filters }), docker.listVolumes({ filters }), docker.listNetworks({ filters })]);
  const withNetwork = new Set(networks.map((n) => n.Labels?.[LABEL.job]));
  const jobs = [...containers.map((c) => c.Labels?.[LABEL.job]), ...(Volumes ?? []).map((v) => v.Labels?.[LABEL.job])];
  return [...new Set(jobs.filter((j): j is string => !!j && !withNetwork.has(j)))];
}

/**
 * A loaded engine can keep an endpoint of a container already removed ("has
 * active endpoints"): the job's network is ours alone, so what is still
 * attached to it is disconnected by force and the removal tried again.
 */
async function removeNetwork(docker: Docker, id: string): Promise<void> {
  const network = docker.getNetwork(id);
  try {
    await network.remove();
  } catch (err) {
    if (statusOf(err) === 404) return;
    const info = (await network.inspect()) as { Containers?: Record<string, { Name?: string }> };
    // A stale endpoint is listed under an `ep-…` key; the engine finds it by the container name it had.
    const attached = Object.entries(info.Containers ?? {}).map(([key, c]) => (key.startsWith('ep-') && c.Name ? c.Name : key));
    for (const container of attached) await network.disconnect({ Container: container, Force: true }).catch(() => undefined);
    try {
      await network.remove();
    } catch (again) {
      throw new Error(`${engineMessage(again)} (attached: ${JSON.stringify(info.Containers ?? {})})`);
    }
  }
}

/** How many containers, networks and volumes of the job are in the engine. */
export async function countJobObjects(docker: Docker, node: string, job: string): Promise<number> {
  const filters = labelFilter(node, { [LABEL.job]: job });
  const [containers, { Volumes }, networks] = await Promise.all([docker.listContainers({ all: true, filters }), docker.listVolumes({ filters }), docker.listNetworks({ filters })]);
  return containers.length + (Volumes ?? []).length + networks.length;
}

/** An object of that name exists: it must be this agent's, never another agent's on the same engine. */
export async function assertOurs(
  inspected: Promise<{ Labels?: Record<string, string> | null; Config?: { Labels?: Record<string, string> } }>,
  node: string,
  what: string,
): Promise<void> {
  const info = await inspected;
  const labels = info.Labels ?? info.Config?.Labels ?? {};
  if (labels[LABEL.node] !== node) throw new Error(`${what} belongs to another node agent on this engine (${labels[LABEL.node] ?? 'not an agent object'})`);
}

export async function ignoreMissing(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
}
