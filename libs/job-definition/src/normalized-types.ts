import type { DockerAuth, ExposeType, HealthCheck, JobLogistics, JobMeta, LogType, ResourceItem, RestartPolicyName, SpreadMarker, VolumeMount } from './types';

/**
 * The one canonical form the node receives: every member present, one shape
 * per member, post-time literals resolved. `normalize` of this form returns an
 * equal value.
 */
export interface NormalizedJobDefinition {
  version: '0.1';
  type: 'container';
  meta: JobMeta;
  global: { variables: Record<string, string> };
  logistics?: JobLogistics;
  deployment_id?: string;
  ops: NormalizedOp[];
}

export type NormalizedOp = NormalizedRunOp | NormalizedCreateVolumeOp;

interface NormalizedOpCommon {
  id: string;
  results: Record<string, NormalizedResult>;
  execution: NormalizedExecution;
}

export interface NormalizedRunOp extends NormalizedOpCommon {
  type: 'container/run';
  args: NormalizedRunArgs;
}

export interface NormalizedCreateVolumeOp extends NormalizedOpCommon {
  type: 'container/create-volume';
  args: { name: string };
}

export interface NormalizedRunArgs {
  image: string;
  aliases: string[];
  /** null: the image's CMD. A string cmd became `['/bin/sh', '-c', cmd]`. */
  cmd: string[] | null;
  /** null: the image's ENTRYPOINT. A string became `['/bin/sh', '-c', entrypoint]`. */
  entrypoint: string[] | null;
  env: Record<string, string>;
  gpu: boolean;
  work_dir: string | null;
  volumes: VolumeMount[];
  private: boolean;
  /**
   * For a private op: the secret part of its host names (`<job>-<label>-<port>`),
   * chosen by the control plane when the job is posted; never in a posted definition.
   */
  private_label?: string;
  /** Spread markers stay until the node resolves them (`resolveLiterals`). */
  expose: NormalizedExposeEntry[];
  restart_policy: NormalizedRestartPolicy;
  resources: ResourceItem[];
  authentication: { docker?: DockerAuth } | null;
}

export type NormalizedExposeEntry = NormalizedExposedPort | Required<SpreadMarker>;

export interface NormalizedExposedPort {
  /** A string only while it is an unresolved literal. */
  port: number | string;
  type: ExposeType;
  health_checks: HealthCheck[];
}

export interface NormalizedRestartPolicy {
  policy: RestartPolicyName;
  /** Restarts after failures before giving up; null: no limit (Docker's 0). Only for on-failure. */
  maxRetries: number | null;
}

export interface NormalizedResult {
  regex: string;
  logType: LogType[];
}

export interface NormalizedExecution {
  /** null: the op is a stage of its own. */
  group: string | null;
  /** `execution.depends_on` then `args.depends`, without repeats. */
  depends_on: string[];
  /** Seconds; null: no timeout of its own. */
  timeout: number | null;
  stop_if_dependent_stops: boolean;
}
