import type { ContainerCreateOptions, HostConfig } from 'dockerode';
import type { NormalizedRestartPolicy, NormalizedRunOp } from '@ocg/job-definition';
import { LABEL, names, opLabels } from './labels';

export interface Limits {
  memoryBytes: number;
  pidsLimit: number;
  /** CPUs (fractions allowed); absent: no CPU limit. */
  cpus?: number;
  /** Writable layer size, where the storage driver supports it; absent: none. */
  diskBytes?: number;
  /** `uid[:gid]` to run as (the market's policy); null or absent: the image's user. */
  user?: string | null;
  /** Root filesystem read-only (the market's policy); `/tmp` stays writable. */
  readOnlyRootFilesystem?: boolean;
  /** Op id → the GPU device ids it gets; an op asking for a GPU and not listed gets every GPU (a local run). */
  gpus?: Record<string, string[]>;
  /** The market's bounds on remote resources (`args.resources`); absent: the node's own settings alone. */
  resources?: ResourceLimits;
}

/** Bytes of one remote resource, and of all of one job's together. */
export interface ResourceLimits {
  perResource?: number;
  perJob?: number;
}

/** Writable scratch space under a read-only root filesystem. */
const TMPFS = 'rw,nosuid,nodev,size=64m';

export interface ContainerSpecInput {
  node: string;
  job: string;
  /** With every literal resolved. */
  op: NormalizedRunOp;
  /** The op's stage name (its group, or its own stage). */
  group: string;
  attempt: number;
  /** The `seq` the container's first log line gets (LABEL.logSeq); unset: 1. */
  logSeq?: number;
  network: string;
  limits: Limits;
  /** Remote resources (the fetch stage's bind mounts). */
  mounts?: { Type: 'bind'; Source: string; Target: string; ReadOnly: boolean }[];
}

/**
 * Docker's default set minus what a job should not need: NET_RAW (raw
 * sockets: spoofing on the job network), MKNOD, SYS_CHROOT, SETPCAP,
 * SETFCAP and AUDIT_WRITE.
 */
export const KEPT_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'NET_BIND_SERVICE'];

/** Bounded engine-side logs too: a chatty job must not fill the node's disk. */
const LOG_CONFIG = { Type: 'json-file', Config: { 'max-size': '20m', 'max-file': '3' } };

export function containerSpec(input: ContainerSpecInput): ContainerCreateOptions {
  const { op, job, network } = input;
  const args = op.args;
  return {
    name: names.container(job, op.id, input.attempt),
    Image: args.image,
    Cmd: args.cmd ?? undefined,
    Entrypoint: args.entrypoint ?? undefined,
    Env: Object.entries(args.env).map(([k, v]) => `${k}=${v}`),
    WorkingDir: args.work_dir ?? undefined,
    User: input.limits.user ?? undefined,
    Labels: { ...opLabels(input.node, job, { id: op.id, group: input.group }, input.attempt), ...(input.logSeq === undefined ? {} : { [LABEL.logSeq]: String(input.logSeq) }) },
    HostConfig: hostConfig(input),
    NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: [op.id, ...args.aliases] } } },
  };
}

function hostConfig({ op, job, network, limits, mounts }: ContainerSpecInput): HostConfig {
  const config: HostConfig = {
    NetworkMode: network,
    RestartPolicy: restartPolicy(op.args.restart_policy),
    Mounts: [...op.args.volumes.map((v) => ({ Type: 'volume' as const, Source: names.volume(job, v.name), Target: v.dest })), ...(mounts ?? [])],
    // Hardening: no privilege gain, few capabilities, bounded pids and memory (no swap on top).
    SecurityOpt: ['no-new-privileges'],
    CapDrop: ['ALL'],
    CapAdd: KEPT_CAPABILITIES,
    PidsLimit: limits.pidsLimit,
    Memory: limits.memoryBytes,
    MemorySwap: limits.memoryBytes,
    Privileged: false,
    // An init as PID 1 forwards SIGTERM and reaps zombies (busybox httpd as PID 1 ignores SIGTERM).
    Init: true,
    LogConfig: LOG_CONFIG,
  };
  if (limits.cpus !== undefined) config.NanoCpus = Math.round(limits.cpus * 1e9);
  if (limits.diskBytes !== undefined) config.StorageOpt = { size: String(limits.diskBytes) };
  if (limits.readOnlyRootFilesystem) {
    config.ReadonlyRootfs = true;
    if (!op.args.volumes.some((v) => v.dest.replace(/\/+$/, '') === '/tmp')) config.Tmpfs = { '/tmp': TMPFS };
  }
  if (op.args.gpu) config.DeviceRequests = [gpuRequest(limits.gpus?.[op.id])];
  return config;
}

/** The op's assigned GPUs; without an assignment, every GPU (a local run on a GPU machine). */
function gpuRequest(devices: string[] | undefined): NonNullable<HostConfig['DeviceRequests']>[number] {
  if (devices && devices.length > 0) return { Driver: 'nvidia', DeviceIDs: devices, Capabilities: [['gpu']] };
  return { Driver: 'nvidia', Count: -1, Capabilities: [['gpu']] };
}

export function restartPolicy(policy: NormalizedRestartPolicy): { Name: string; MaximumRetryCount?: number } {
  if (policy.policy === 'on-failure') return { Name: 'on-failure', MaximumRetryCount: policy.maxRetries ?? 0 };
  return { Name: policy.policy };
}
