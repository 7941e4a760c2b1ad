/**
 * The node API's bodies (apps/node-agent, `API_PORT`; described by
 * libs/api-spec/node-openapi.json). Every route answers the job poster only;
 * errors are the one {@link ErrorBody} shape.
 */
import type { JobLogStream, JobOpState } from '../jobs/jobs';

/** running until every op ended or it was stopped; the others are final. */
export type NodeJobState = 'running' | 'completed' | 'failed' | 'stopped';

/** ONLINE: startup checks passed in the current container run and continuous checks pass. */
export type NodeEndpointHealth = 'ONLINE' | 'OFFLINE';

/** How the port is reached (the definition's `expose[].type`). */
export type NodeExposeType = 'api' | 'web' | 'websocket' | 'webapi' | 'none';

export interface NodeEndpointStatus {
  /**
   * @isInt
   * @minimum 1
   * @maximum 65535
   */
  port: number;
  type: NodeExposeType;
  /** The first label of the host name that reaches this port (`<job>-<port>` or `<job>-<opIndex>-<port>`). */
  host: string;
  /** `https://<host>.<node domain>` */
  url: string;
  status: NodeEndpointHealth;
  /** Passed its startup checks in the current container run. */
  ready: boolean;
}

/** One remote resource of an op as the node fetches it (`args.resources`). */
export interface NodeResourceProgress {
  /**
   * Names the resource (kind and location; never a credential).
   * @maxLength 1000
   */
  resource: string;
  /**
   * Where it is mounted in the op's container.
   * @maxLength 1000
   */
  target: string;
  /** waiting: for a fetch slot; resolving: listing its files; fetching: downloading; ready: mounted next; failed: the op's reason says why. */
  state: 'waiting' | 'resolving' | 'fetching' | 'ready' | 'failed';
  /** Taken from the node's cache: no bytes were transferred. */
  cached: boolean;
  /** @isInt */
  bytesDone: number;
  /**
   * Null until listed, or when the source does not tell sizes.
   * @isInt
   */
  bytesTotal: number | null;
  /** @isInt */
  filesDone: number;
  /**
   * Null until listed.
   * @isInt
   */
  filesTotal: number | null;
}

export interface NodeOpStatus {
  id: string;
  /** The op's stage name: its execution.group, or its own id for an op without a group. */
  group: string;
  /**
   * The stage's position, from 0.
   * @isInt
   * @minimum 0
   */
  stage: number;
  /**
   * The op's position in the definition, from 0.
   * @isInt
   * @minimum 0
   */
  opIndex: number;
  type: 'container/run' | 'container/create-volume';
  state: JobOpState;
  /**
   * The container's last exit code, once it exited.
   * @isInt
   */
  exitCode: number | null;
  /** Why it failed or was stopped; null otherwise. */
  reason: string | null;
  /**
   * Restarts done by the restart policy in the current container.
   * @isInt
   * @minimum 0
   */
  restarts: number;
  /** ISO 8601. */
  startedAt: string | null;
  /** ISO 8601. */
  endedAt: string | null;
  endpoints: NodeEndpointStatus[];
  /** What a pending op is doing before its container exists: `fetching resources` while its resources download; null otherwise. */
  activity?: 'fetching resources' | null;
  /** Its remote resources and how far their fetch got; absent for an op without resources. */
  resources?: NodeResourceProgress[];
}

/** `GET /job/{job}/ops`: the job as this node runs it. */
export interface NodeJobStatus {
  /** The job address. */
  job: string;
  state: NodeJobState;
  /** Why it failed or was stopped; null otherwise. */
  reason: string | null;
  /** ISO 8601. */
  startedAt: string;
  /** When the job's duration is over (ISO 8601). */
  deadline: string;
  /** ISO 8601. */
  endedAt: string | null;
  /** The stage that runs now (the last one reached), null once the job ended. */
  currentStage: string | null;
  ops: NodeOpStatus[];
}

/** Op id → result name → captured values, in order. */
export type NodeJobResults = Record<string, Record<string, string[]>>;

/** `GET /job/{job}/results`: what the ops' result patterns captured so far. */
export interface GetNodeJobResultsResponse {
  job: string;
  state: NodeJobState;
  results: NodeJobResults;
}

/** One line of an op's output as the node keeps it. */
export interface NodeLogLine {
  /**
   * Increases by one per line over the op's life, from 1, so a follower can tell what it missed.
   * @isInt
   * @minimum 1
   */
  seq: number;
  /** RFC 3339 with nanoseconds, from the engine (nodeerr: the agent's clock). */
  time: string;
  stream: JobLogStream;
  /** The line, cut at 16 KiB. */
  text: string;
}

/** `GET /job/{job}/ops/{opid}/logs` without `follow`: the retained lines, oldest first. */
export interface GetNodeOpLogsResponse {
  job: string;
  op: string;
  lines: NodeLogLine[];
}

/** A stop or restart of an op or a group: the ops it touched, as they are now. */
export interface ControlNodeOpsResponse {
  job: string;
  ops: NodeOpStatus[];
}
