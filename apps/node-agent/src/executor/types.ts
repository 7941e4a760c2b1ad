/** What the executor reports: the node API's bodies and the control plane's reports. */
import type { JobContainerLimits, JobOpState, NodeEndpointHealth, NodeEndpointStatus, NodeJobResults, NodeJobState, NodeJobStatus, NodeOpStatus } from '@ocg/contracts';
import type { NormalizedJobDefinition } from '@ocg/job-definition';

/** The node API's bodies are the contract's (libs/contracts, "node"): the executor answers them as they are. */
export type OpState = JobOpState;
export type JobState = NodeJobState;
export type EndpointHealth = NodeEndpointHealth;
export type EndpointStatus = NodeEndpointStatus;
/** What the control plane hears of an endpoint: its status, the host labels leading to it, and its forward (ADR 0092). */
export type EndpointReport = EndpointStatus & { hosts: string[]; forward?: string };
export type OpStatus = NodeOpStatus;
export type JobStatus = NodeJobStatus;
export type JobResults = NodeJobResults;

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

/** Sent once, when the job ended and before its containers are removed. */
export interface JobSummary extends JobStatus {
  results: JobResults;
}
