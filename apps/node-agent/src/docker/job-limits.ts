import { createHash } from 'node:crypto';
import type { JobContainerLimits } from '@ocg/contracts';
import type { NormalizedJobDefinition } from '@ocg/job-definition';
import type { Limits } from './container-spec';

/** What this node allows any container, whatever a market says. */
export interface NodeLimits {
  memoryBytes: number;
  pidsLimit: number;
  /** This machine's CPUs: Docker refuses a CPU limit above it. */
  cpus: number;
  /** GPU device ids (`nvidia-smi` indexes) ops may be given. */
  gpuDevices: readonly string[];
  /** Whether the storage driver takes a writable-layer size (`StorageOpt.size`). */
  diskQuota: boolean;
}

/**
 * A job's container limits: the market's (sent with the claim), never above
 * the node's own; without them (a local run, an adopted job, an older control
 * plane) the node's. GPUs are assigned per op: see `assignGpus`.
 */
export function jobLimits(node: NodeLimits, job: string, definition: NormalizedJobDefinition, market?: JobContainerLimits): Limits {
  return {
    memoryBytes: Math.min(node.memoryBytes, market?.memoryBytes ?? Infinity),
    pidsLimit: Math.min(node.pidsLimit, market?.pids ?? Infinity),
    cpus: market ? Math.min(node.cpus, market.cpus) : undefined,
    diskBytes: market && node.diskQuota ? market.diskBytes : undefined,
    user: market?.user ?? null,
    readOnlyRootFilesystem: market?.readOnlyRootFilesystem ?? false,
    gpus: assignGpus(job, definition, node.gpuDevices),
    resources: market ? { perResource: market.bytesPerResource, perJob: market.resourceBytesPerJob } : undefined,
  };
}

/**
 * One GPU per op that asks for one, in turn over the node's devices, so two
 * GPU ops of one job get different GPUs while there are enough. The turn
 * starts at a place derived from the job address: jobs spread over the GPUs,
 * and an adopted job gets the same assignment after an agent restart.
 */
export function assignGpus(job: string, definition: NormalizedJobDefinition, devices: readonly string[]): Record<string, string[]> {
  if (devices.length === 0) return {};
  const start = createHash('sha256').update(job).digest().readUInt32BE(0) % devices.length;
  const gpuOps = definition.ops.filter((op) => op.type === 'container/run' && op.args.gpu);
  return Object.fromEntries(gpuOps.map((op, k) => [op.id, [devices[(start + k) % devices.length]]]));
}
