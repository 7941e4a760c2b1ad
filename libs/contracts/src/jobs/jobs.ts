/**
 * Jobs (deployment-manager): a job definition posted to a market, run by one
 * node of that market for a paid duration. Amounts are integer credit units
 * (1 credit = 1,000,000 units).
 */
import type { NodeResourceProgress } from '../node/node-api';

/**
 * QUEUED → RUNNING (a node claimed it) → COMPLETED | FAILED | STOPPED;
 * QUEUED → STOPPED (stopped before a node claimed it) | FAILED (never started).
 * COMPLETED, FAILED and STOPPED are final.
 */
export type JobState = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'STOPPED';

/** pending → running → completed | failed; stopped: by the poster, a dependency or the job's end. */
export type JobOpState = 'pending' | 'running' | 'completed' | 'failed' | 'stopped';

/** ONLINE: the port passed its startup checks and its continuous checks pass. PENDING: not ready yet. */
export type JobEndpointStatus = 'PENDING' | 'ONLINE' | 'OFFLINE';

/** stdout and stderr of the op's container; nodeerr: what the node says about the op (pulls, exits). */
export type JobLogStream = 'stdout' | 'stderr' | 'nodeerr';

/** One line of an op's output as a node reports it. */
export interface JobLogLine {
  stream: JobLogStream;
  /**
   * The line, cut at 500 characters.
   * @maxLength 500
   */
  text: string;
}

/** open: the settlement of the job's holds has not finished; settled: every hold is settled or released. */
export type JobSettlement = 'open' | 'settled';

/**
 * A job definition, version 0.1. The description publishes its full schema under
 * this name (generated from libs/job-definition, which validates it).
 */
export type JobDefinition = { [member: string]: unknown };

export interface PostJobRequest {
  /**
   * The job definition. Give this or `definitionCid`, not both.
   * It is stored in the content-addressed store as its compact JSON text.
   */
  definition?: JobDefinition;
  /**
   * The content id (`bafkrei…`) of a definition uploaded with `POST /cas`, instead of `definition`.
   * @minLength 1
   * @maxLength 200
   */
  definitionCid?: string;
  /**
   * The market: its address, or its name (case-insensitive).
   * @minLength 1
   * @maxLength 200
   */
  market: string;
  /**
   * How long the job may run, in seconds. Default: the market's default duration; at most the market's maximum.
   * The whole duration is held from the balance when the job is posted; only the seconds run are charged.
   * @isInt
   * @minimum 1
   * @maximum 2592000
   */
  durationSeconds?: number;
}

export interface ExtendJobRequest {
  /**
   * Seconds to add to the job's duration. The total may not exceed the market's maximum.
   * The added seconds are held from the balance at once.
   * @isInt
   * @minimum 1
   * @maximum 2592000
   */
  seconds: number;
}

export interface JobOpRecord {
  id: string;
  /** The op's stage: its execution.group, or its own id for an op without a group. */
  group: string | null;
  /** Position of the op in the definition. */
  opIndex: number;
  status: JobOpState;
  exitCode: number | null;
  /** Why it failed or was stopped. */
  reason: string | null;
  /** Restarts by the op's restart policy. */
  restarts: number;
  /** ISO 8601. */
  startedAt: string | null;
  /** ISO 8601. */
  endedAt: string | null;
  /** `fetching resources` while a pending op's resources download, as its node last reported. */
  activity?: 'fetching resources' | null;
  /** Its remote resources' fetch progress, as its node last reported (the poster's view only). */
  resources?: NodeResourceProgress[];
}

export interface JobEndpointRecord {
  /** The op exposing the port. */
  op: string;
  port: number;
  /** `https://<job>-<port>.<node domain>` (or `<job>-<opIndex>-<port>` when two ops expose the port). */
  url: string;
  status: JobEndpointStatus;
  /** ISO 8601 of the last change reported by the node. */
  updatedAt: string;
}

/** A job as listed: everything but its ops and endpoints. */
export interface JobSummaryRecord {
  /** The job address: base58 of 32 random bytes. */
  address: string;
  status: JobState;
  /** Why the job ended (e.g. `stopped by the poster`, `duration ended`, an op's failure). */
  reason: string | null;
  /** The market's address. */
  market: string;
  /** The address of the node that claimed it. */
  node: string | null;
  /** The poster's wallet address: node API requests must be signed by this wallet. */
  poster: string;
  /** Credit units per second, the market's price when the job was posted. */
  pricePerSecond: number;
  /** The paid duration (extensions included). */
  durationSeconds: number;
  /** pricePerSecond × durationSeconds: what is held from the balance. */
  totalPrice: number;
  /** Seconds charged: from start to end, rounded up to whole seconds, at most durationSeconds. Set once the job ended. */
  billedSeconds: number | null;
  /** pricePerSecond × billedSeconds. Set once the job ended. */
  cost: number | null;
  settlement: JobSettlement;
  /** Content id of the definition. */
  definitionCid: string;
  /** Content id of the result (ops, their states and captured results), once the node finished the job. */
  resultCid: string | null;
  /** The job's URL (its first exposed port), when it exposes any. */
  url: string | null;
  links: JobLinks;
  /** ISO 8601 timestamps. */
  createdAt: string;
  startedAt: string | null;
  /** When the paid duration is over (set when the job starts). */
  endsAt: string | null;
  finishedAt: string | null;
  settledAt: string | null;
}

/** Where to read the job and what it refers to, through the gateway. */
export interface JobLinks {
  job: string;
  market: string;
  /** `GET /cas/{definitionCid}` */
  definition: string;
  /** `GET /cas/{resultCid}`, once there is a result. */
  result: string | null;
}

export interface JobRecord extends JobSummaryRecord {
  ops: JobOpRecord[];
  endpoints: JobEndpointRecord[];
}

export interface ListJobsResponse {
  /** The caller's jobs, newest first. */
  jobs: JobSummaryRecord[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/**
 * For the gateway's job ingress (internal): which node serves a host name's
 * job. Host names are lowercase, so the lookup ignores case (job addresses
 * are unique by their lowercase form).
 */
export interface JobRouteRecord {
  /** The job address, in its own case. */
  job: string;
  status: JobState;
  /** The node running it; null before a claim. */
  node: string | null;
  /**
   * Endpoints the gateway may reach without the node's ingress (ADR 0092):
   * each lowercase first label of a ready, online endpoint's host names, to the
   * `<IPv4>:<port>` its node forwards to the container. Empty when none.
   */
  forwards: Record<string, string>;
}

/** An op on the job page (internal): its record and the last lines of its output. */
export interface JobPageOpRecord extends JobOpRecord {
  /** The last lines the node reported (at most 20, oldest first); empty before any. */
  logTail: JobLogLine[];
}

/**
 * For the gateway's job page (internal): the job, and every op of its
 * definition (those no node reported on yet read `pending`) with its log tail.
 * The poster's view has everything; the public view (anyone else holding the
 * job's link) has what a shared link may show: status, market, times and
 * the public endpoints. There, output, reasons (which may quote output),
 * content ids and private endpoints are left out (null or empty).
 */
export interface JobPageRecord extends Omit<JobSummaryRecord, 'poster' | 'definitionCid' | 'links'> {
  view: 'poster' | 'public';
  /** The poster's wallet address; null in the public view. */
  poster: string | null;
  /** Null in the public view. */
  definitionCid: string | null;
  ops: JobPageOpRecord[];
  endpoints: JobEndpointRecord[];
}

/** A job of a market, for the gateway's market page (internal). */
export interface MarketJobRecord {
  address: string;
  status: JobState;
  /** ISO 8601. */
  startedAt: string | null;
  /** ISO 8601: when the paid duration is over. */
  endsAt: string | null;
}

export interface ListMarketJobsResponse {
  /** Oldest started first. */
  jobs: MarketJobRecord[];
  /** Jobs of the market in that status, over all pages. */
  total: number;
}
