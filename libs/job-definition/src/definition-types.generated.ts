/**
 * Generated from jobDefinitionJsonSchema by `npm run contract`; do not edit.
 * `npm run contract:check` fails when this file and the schema disagree.
 */

/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "op".
 */
export type Op = RunOp | CreateVolumeOp;
/**
 * Unique in the job; also the host name other ops reach this op by.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "opId".
 */
export type OpId = string;
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "aliases".
 */
export type Aliases = HostName | HostNameList;
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "hostName".
 */
export type HostName = string;
/**
 * @maxItems 100
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "hostNameList".
 */
export type HostNameList = HostName[];
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "argv".
 */
export type Argv = ArgvText | ArgvList;
/**
 * Shell form: run as `/bin/sh -c <text>`.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "argvText".
 */
export type ArgvText = string;
/**
 * @maxItems 4096
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "argvList".
 */
export type ArgvList = string[];
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "expose".
 */
export type Expose = ExposeList | ExposeEntry;
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "exposeEntry".
 */
export type ExposeEntry = Port | PortText | SpreadMarker | ExposedPort;
/**
 * A TCP port of the container.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "port".
 */
export type Port = number;
/**
 * A port written as text: decimal digits, or a literal that the node resolves to one.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "portText".
 */
export type PortText = string;
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "literal".
 */
export type Literal = string;
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "healthCheck".
 */
export type HealthCheck = HttpHealthCheck | WebsocketHealthCheck;
/**
 * @maxItems 1000
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "exposeList".
 */
export type ExposeList = ExposeEntry[];
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "restartPolicy".
 */
export type RestartPolicy = RestartPolicyName | RestartPolicyObject;
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "restartPolicyName".
 */
export type RestartPolicyName = 'no' | 'on-failure' | 'always' | 'unless-stopped';
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "resourceItem".
 */
export type ResourceItem = RemoveIfEmpty | SpreadMarker | S3Location | S3Bucket | S3Buckets | HfRepository | OllamaModel;
/**
 * Marker: drop the member when nothing is left in the array after literals resolve.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "removeIfEmpty".
 */
export type RemoveIfEmpty = '__remove-if-empty__';
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "result".
 */
export type Result = ResultRegex | ResultSpec;
/**
 * A JavaScript regular expression run over stdout and stderr.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "resultRegex".
 */
export type ResultRegex = string;
/**
 * @maxItems 1000
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "opList".
 */
export type OpList = Op[];

/**
 * A container job: one or more ops run on one node, in stages.
 */
export interface JobDefinition {
  version: '0.1';
  type: 'container';
  /**
   * Free-form; the members listed here are typed.
   */
  meta?: {
    /**
     * Where the job came from, e.g. cli or dashboard.
     */
    trigger?: string;
    system_requirements?: {
      required_vram?: number;
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
  global?: {
    /**
     * Values substituted for %%global.variables.<name>%% when the job is posted.
     */
    variables?: {
      [k: string]: string;
    };
  };
  /**
   * Confidential jobs: where the node fetches the real ops and sends results.
   */
  logistics?: {
    send?: {
      type: 'api' | 'api-listen';
      args: {
        endpoint?: string;
      };
    };
    receive?: {
      type: 'api' | 'api-listen';
      args: {
        endpoint?: string;
      };
    };
  };
  deployment_id?: string;
  ops: OpList;
}
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "runOp".
 */
export interface RunOp {
  type: 'container/run';
  id: OpId;
  args: RunArgs;
  results?: Results;
  execution?: Execution;
}
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "runArgs".
 */
export interface RunArgs {
  /**
   * A container image reference.
   */
  image: string;
  aliases?: Aliases;
  cmd?: Argv;
  entrypoint?: Argv;
  /**
   * Environment variables. A `__spread__` key merges the JSON object its literal resolves to.
   */
  env?: {
    [k: string]: string;
  };
  /**
   * Requests a GPU; the market must be a GPU market.
   */
  gpu?: boolean;
  work_dir?: string;
  /**
   * @maxItems 100
   */
  volumes?: {
    name: string;
    dest: string;
  }[];
  private?: boolean;
  expose?: Expose;
  restart_policy?: RestartPolicy;
  /**
   * @maxItems 100
   */
  resources?: ResourceItem[];
  authentication?: {
    docker?: {
      username?: string;
      password?: string;
      email?: string;
      server?: string;
    };
  };
  /**
   * Deprecated alias of execution.depends_on.
   *
   * @maxItems 1000
   */
  depends?: string[];
}
/**
 * Replaced at run time by the JSON (array or object) the literal resolves to.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "spreadMarker".
 */
export interface SpreadMarker {
  __spread__: Literal;
  /**
   * The literal has several values: join them, then parse once.
   */
  chunked?: boolean;
}
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "exposedPort".
 */
export interface ExposedPort {
  port: Port;
  type?: 'api' | 'web' | 'websocket' | 'webapi' | 'none';
  /**
   * @maxItems 100
   */
  health_checks?: HealthCheck[];
}
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "httpHealthCheck".
 */
export interface HttpHealthCheck {
  type: 'http';
  path: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  expected_status: number;
  /**
   * true: keep checking after startup and take the endpoint offline while it fails.
   */
  continuous: boolean;
  headers?: {
    [k: string]: string;
  };
  /**
   * Request body: sent as is when a string, as JSON otherwise.
   */
  body?: {
    [k: string]: unknown;
  };
}
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "websocketHealthCheck".
 */
export interface WebsocketHealthCheck {
  type: 'websocket';
  expected_response: string;
  continuous: boolean;
}
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "restartPolicyObject".
 */
export interface RestartPolicyObject {
  policy: 'on-failure';
  /**
   * Restarts after a failure before giving up.
   */
  restart_tries?: number;
}
/**
 * Object store, one location.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "s3Location".
 */
export interface S3Location {
  type: 'S3';
  /**
   * Where the files appear in the container.
   */
  target: string;
  url?: string;
  allowWrite?: boolean;
  IAM?: {
    REGION: string;
    ACCESS_KEY_ID: string;
    SECRET_ACCESS_KEY: string;
  };
  /**
   * @maxItems 1000
   */
  files?: string[];
}
/**
 * Object store, a whole bucket.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "s3Bucket".
 */
export interface S3Bucket {
  type: 'S3';
  /**
   * Where the files appear in the container.
   */
  target: string;
  url?: string;
  allowWrite?: boolean;
  IAM?: {
    REGION: string;
    ACCESS_KEY_ID: string;
    SECRET_ACCESS_KEY: string;
  };
  bucket: string;
}
/**
 * Object store, several buckets.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "s3Buckets".
 */
export interface S3Buckets {
  type: 'S3';
  /**
   * Where the files appear in the container.
   */
  target: string;
  url?: string;
  allowWrite?: boolean;
  IAM?: {
    REGION: string;
    ACCESS_KEY_ID: string;
    SECRET_ACCESS_KEY: string;
  };
  /**
   * @maxItems 100
   */
  buckets: {
    url: string;
    /**
     * @maxItems 1000
     */
    files?: string[];
  }[];
}
/**
 * Model hub repository.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "hfRepository".
 */
export interface HfRepository {
  type: 'HF';
  /**
   * Where the files appear in the container.
   */
  target: string;
  repo: string;
  revision?: string;
  /**
   * @maxItems 1000
   */
  files?: string[];
  accessToken?: string;
}
/**
 * Model runner model.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "ollamaModel".
 */
export interface OllamaModel {
  type: 'Ollama';
  model: string;
  /**
   * Where the files appear in the container.
   */
  target?: string;
}
/**
 * Values captured from the logs, by name; other ops read them as %%ops.<id>.results.<name>%%.
 *
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "results".
 */
export interface Results {
  [k: string]: Result;
}
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "resultSpec".
 */
export interface ResultSpec {
  regex: ResultRegex;
  /**
   * @minItems 1
   * @maxItems 4
   */
  logType: ['stdin' | 'stdout' | 'stderr' | 'nodeerr', ...('stdin' | 'stdout' | 'stderr' | 'nodeerr')[]];
}
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "execution".
 */
export interface Execution {
  /**
   * Ops of one group form a stage.
   */
  group?: string;
  /**
   * Ops that must be released before this op starts.
   *
   * @maxItems 1000
   */
  depends_on?: string[];
  /**
   * Seconds the op may run before it is stopped.
   */
  timeout?: number;
  /**
   * Stop this op when an op it depends on ends.
   */
  stop_if_dependent_stops?: boolean;
}
/**
 * This interface was referenced by `JobDefinition`'s JSON-Schema
 * via the `definition` "createVolumeOp".
 */
export interface CreateVolumeOp {
  type: 'container/create-volume';
  id: OpId;
  args: {
    name: string;
  };
  results?: Results;
  execution?: Execution;
}
