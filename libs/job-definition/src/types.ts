import type { FieldError } from '@ocg/contracts';

/**
 * A job definition as posted (version 0.1). Mirrors `jobDefinitionJsonSchema`;
 * `validate` is the gate: only call `normalize` on a definition it accepted.
 */
export interface JobDefinition {
  version: '0.1';
  type: 'container';
  meta?: JobMeta;
  global?: JobGlobal;
  /** Confidential jobs: the node fetches the real ops from `send.args.endpoint`. */
  logistics?: JobLogistics;
  deployment_id?: string;
  ops: Op[];
}

/** Free-form; only these members are typed. */
export interface JobMeta {
  trigger?: string;
  system_requirements?: { required_vram?: number; [member: string]: unknown };
  [member: string]: unknown;
}

export interface JobGlobal {
  /** Substituted for `%%global.variables.<name>%%` at post time. */
  variables?: Record<string, string>;
}

export interface JobLogistics {
  send?: LogisticsLeg;
  receive?: LogisticsLeg;
}

export interface LogisticsLeg {
  type: 'api' | 'api-listen';
  args: { endpoint?: string };
}

export type Op = RunOp | CreateVolumeOp;
export type OpType = Op['type'];

interface OpCommon {
  /** Unique in the job and a DNS label: other ops reach this op by it as host name. */
  id: string;
  results?: Results;
  execution?: Execution;
}

export interface RunOp extends OpCommon {
  type: 'container/run';
  args: RunArgs;
}

export interface CreateVolumeOp extends OpCommon {
  type: 'container/create-volume';
  args: { name: string };
}

export interface RunArgs {
  image: string;
  aliases?: string | string[];
  /** A string is shell form: run as `/bin/sh -c <cmd>`. */
  cmd?: string | string[];
  /** A string is shell form: run as `/bin/sh -c <entrypoint>`. */
  entrypoint?: string | string[];
  /** A `__spread__` key merges the JSON object its literal resolves to. */
  env?: Record<string, string>;
  gpu?: boolean;
  work_dir?: string;
  volumes?: VolumeMount[];
  private?: boolean;
  expose?: ExposeEntry | ExposeEntry[];
  restart_policy?: RestartPolicyName | RestartPolicyObject;
  resources?: ResourceItem[];
  authentication?: { docker?: DockerAuth };
  /** @deprecated alias of `execution.depends_on`; accepted with a warning. */
  depends?: string[];
}

export interface VolumeMount {
  name: string;
  dest: string;
}

export interface DockerAuth {
  username?: string;
  password?: string;
  email?: string;
  server?: string;
}

export type RestartPolicyName = 'no' | 'on-failure' | 'always' | 'unless-stopped';

export interface RestartPolicyObject {
  policy: 'on-failure';
  restart_tries?: number;
}

/** A port, a port as text ("8080" or a literal), a spread marker or a port with options. */
export type ExposeEntry = number | string | SpreadMarker | ExposedPort;
export type ExposeType = 'api' | 'web' | 'websocket' | 'webapi' | 'none';

export interface ExposedPort {
  port: number;
  type?: ExposeType;
  health_checks?: HealthCheck[];
}

export type HealthCheck = HttpHealthCheck | WebSocketHealthCheck;

export interface HttpHealthCheck {
  type: 'http';
  path: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  expected_status: number;
  continuous: boolean;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface WebSocketHealthCheck {
  type: 'websocket';
  expected_response: string;
  continuous: boolean;
}

/** Replaced at run time by the JSON array or object its literal resolves to. */
export interface SpreadMarker {
  __spread__: string;
  chunked?: boolean;
}

export const REMOVE_IF_EMPTY = '__remove-if-empty__';
export type RemoveIfEmptyMarker = typeof REMOVE_IF_EMPTY;

export type ResourceItem = Resource | SpreadMarker | RemoveIfEmptyMarker;
export type Resource = S3Location | S3Bucket | S3Buckets | HfRepository | OllamaModel;

interface S3Common {
  type: 'S3';
  target: string;
  url?: string;
  allowWrite?: boolean;
  IAM?: { REGION: string; ACCESS_KEY_ID: string; SECRET_ACCESS_KEY: string };
}

export interface S3Location extends S3Common {
  files?: string[];
}

export interface S3Bucket extends S3Common {
  bucket: string;
}

export interface S3Buckets extends S3Common {
  buckets: Array<{ url: string; files?: string[] }>;
}

export interface HfRepository {
  type: 'HF';
  target: string;
  repo: string;
  revision?: string;
  files?: string[];
  accessToken?: string;
}

export interface OllamaModel {
  type: 'Ollama';
  model: string;
  target?: string;
}

export type LogType = 'stdin' | 'stdout' | 'stderr' | 'nodeerr';
/** A bare string is a regex over stdout and stderr. */
export type Results = Record<string, string | ResultSpec>;

export interface ResultSpec {
  regex: string;
  logType: LogType[];
}

export interface Execution {
  /** Ops of one group form a stage; without a group the op is a stage of its own. */
  group?: string;
  depends_on?: string[];
  /** Seconds. */
  timeout?: number;
  stop_if_dependent_stops?: boolean;
}

/** One problem: a JSON pointer into the definition and what to do about it (the API's field error shape). */
export type Issue = FieldError;

export interface ValidationResult {
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
}
