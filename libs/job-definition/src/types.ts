import type { FieldError } from '@ocg/contracts';

/*
 * The shapes below are generated from `jobDefinitionJsonSchema`
 * (definition-types.generated.ts, by `npm run contract`; ADR 0055) and only
 * named here, so the schema is their one source and `contract:check` fails
 * when the two disagree. `validate` is the gate: only call `normalize` on a
 * definition it accepted.
 */
import type * as Generated from './definition-types.generated';

/** A job definition as posted (version 0.1). */
export type JobDefinition = Generated.JobDefinition;
/** Free-form; only some members are typed. */
export type JobMeta = NonNullable<JobDefinition['meta']>;
/** `variables` are substituted for `%%global.variables.<name>%%` at post time. */
export type JobGlobal = NonNullable<JobDefinition['global']>;
/** Confidential jobs: the node fetches the real ops from `send.args.endpoint`. */
export type JobLogistics = NonNullable<JobDefinition['logistics']>;
export type LogisticsLeg = NonNullable<JobLogistics['send']>;

export type Op = Generated.Op;
export type OpType = Op['type'];
export type RunOp = Generated.RunOp;
export type CreateVolumeOp = Generated.CreateVolumeOp;
/** `cmd`/`entrypoint` as a string are shell form (`/bin/sh -c`); `env` may hold a `__spread__` key; `depends` is the deprecated alias of `execution.depends_on`. */
export type RunArgs = Generated.RunArgs;
export type VolumeMount = NonNullable<RunArgs['volumes']>[number];
export type DockerAuth = NonNullable<NonNullable<RunArgs['authentication']>['docker']>;

export type RestartPolicyName = Generated.RestartPolicyName;
export type RestartPolicyObject = Generated.RestartPolicyObject;

/** A port, a port as text ("8080" or a literal), a spread marker or a port with options. */
export type ExposeEntry = Generated.ExposeEntry;
export type ExposedPort = Generated.ExposedPort;
export type ExposeType = NonNullable<ExposedPort['type']>;

export type HealthCheck = HttpHealthCheck | WebSocketHealthCheck;
/** `body` has no type in the schema (any JSON), which the generator reads as an object. */
export type HttpHealthCheck = Omit<Generated.HttpHealthCheck, 'body'> & { body?: unknown };
export type WebSocketHealthCheck = Generated.WebsocketHealthCheck;

/** Replaced at run time by the JSON array or object its literal resolves to. */
export type SpreadMarker = Generated.SpreadMarker;

export const REMOVE_IF_EMPTY: Generated.RemoveIfEmpty = '__remove-if-empty__';
export type RemoveIfEmptyMarker = Generated.RemoveIfEmpty;

export type ResourceItem = Generated.ResourceItem;
export type Resource = Exclude<ResourceItem, SpreadMarker | RemoveIfEmptyMarker>;
export type S3Location = Generated.S3Location;
export type S3Bucket = Generated.S3Bucket;
export type S3Buckets = Generated.S3Buckets;
export type HfRepository = Generated.HfRepository;
export type OllamaModel = Generated.OllamaModel;

/** A bare string is a regex over stdout and stderr. */
export type Results = Generated.Results;
export type ResultSpec = Generated.ResultSpec;
export type LogType = ResultSpec['logType'][number];
/** Ops of one group form a stage; without a group the op is a stage of its own. `timeout` is in seconds. */
export type Execution = Generated.Execution;

/** One problem: a JSON pointer into the definition and what to do about it (the API's field error shape). */
export type Issue = FieldError;

export interface ValidationResult {
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
}
