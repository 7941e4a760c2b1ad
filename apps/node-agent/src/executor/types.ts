import type { JobContainerLimits } from '@ocg/contracts';
/** What the executor reports: the node API's bodies and the control plane's reports. */
import type { ExposeType, NormalizedJobDefinition } from '@ocg/job-definition';

/** pending → running → completed | failed; stopped: by a user, a dependency or the job's end. */
export type OpState = 'pending' | 'running' | 'completed' | 'failed' | 'stopped';
export type JobState = 'running' | 'completed' | 'failed' | 'stopped';
/** ONLINE: startup checks passed and continuous checks pass. */
export type EndpointHealth = 'ONLINE' | 'OFFLINE';

/** What a node receives to run: the control plane's claim, or a local file. */
export interface JobAssignment {
  /** The job address (base58). */
  job: string;
  /** The poster's wallet address: node API requests must be signed by it. */
  poster: string;
  definition: NormalizedJobDefinition;
  /** Unix ms when the job's duration is over. */
  deadline: number;
  /** The market's limits for each container (from the claim); absent: the node's own. */
  containerLimits?: JobContainerLimits;
}

export interface EndpointStatus {
  port: number;
  type: ExposeType;
  /** The first label of the host name that reaches this port (`<job>-<port>` or `<job>-<opIndex>-<port>`). */
  host: string;
  /** `https://<host>.<node domain>` */
  url: string;
  status: EndpointHealth;
  /** Passed its startup checks in the current container run. */
  ready: boolean;
}

export interface OpStatus {
  id: string;
  /** The op's stage name: its execution.group, or its own id for an op without a group. */
  group: string;
  stage: number;
  opIndex: number;
  type: 'container/run' | 'container/create-volume';
  state: OpState;
  /** The container's last exit code, once it exited. */
  exitCode: number | null;
  /** Why it failed or was stopped; null otherwise. */
  reason: string | null;
  /** Restarts done by the restart policy in the current container. */
  restarts: number;
  startedAt: string | null;
  endedAt: string | null;
  endpoints: EndpointStatus[];
}

export interface JobStatus {
  job: string;
  state: JobState;
  reason: string | null;
  startedAt: string;
  /** When the job's duration is over. */
  deadline: string;
  endedAt: string | null;
  /** The stage that runs now (the last one reached), null once the job ended. */
  currentStage: string | null;
  ops: OpStatus[];
}

/** Op id → result name → captured values, in order. */
export type JobResults = Record<string, Record<string, string[]>>;

/** Sent once, when the job ended and before its containers are removed. */
export interface JobSummary extends JobStatus {
  results: JobResults;
}
