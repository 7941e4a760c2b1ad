import type { JobState as ContractJobState } from '@ocg/contracts';

/**
 * Job states and the only transitions allowed between them. Every write of a
 * job's status goes through `assertTransition`, and the SQL that moves a job
 * also checks the old status, so a race cannot skip this table.
 *
 *   QUEUED  -> RUNNING    a node of the market claimed it
 *   QUEUED  -> STOPPED    the poster stopped it before any node claimed it
 *   QUEUED  -> FAILED     it could not be started (no node claimed it within QUEUE_TIMEOUT_SECONDS)
 *   RUNNING -> COMPLETED  every op ended successfully
 *   RUNNING -> FAILED     an op failed (after its restart policy), or its node lost it
 *   RUNNING -> STOPPED    stopped by the poster, the end of its duration, or its node going silent
 *   RUNNING -> QUEUED     its node never acknowledged the claim within CLAIM_ACK_SECONDS (the answer was lost)
 *
 * COMPLETED, FAILED and STOPPED are final.
 */
export const JOB_STATES = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'STOPPED'] as const satisfies readonly ContractJobState[];
export type JobState = (typeof JOB_STATES)[number];
export const FINAL_STATES: readonly JobState[] = ['COMPLETED', 'FAILED', 'STOPPED'];

const NEXT: Record<JobState, readonly JobState[]> = {
  QUEUED: ['RUNNING', 'STOPPED', 'FAILED'],
  RUNNING: ['COMPLETED', 'FAILED', 'STOPPED', 'QUEUED'],
  COMPLETED: [],
  FAILED: [],
  STOPPED: [],
};

export const canTransition = (from: JobState, to: JobState): boolean => NEXT[from].includes(to);

export const isFinal = (state: JobState): boolean => NEXT[state].length === 0;

/** The states a job may be in just before moving to `to`: what an UPDATE … WHERE status IN (…) checks. */
export const allowedSources = (to: JobState): JobState[] => JOB_STATES.filter((from) => canTransition(from, to));

export class InvalidTransitionError extends Error {
  constructor(
    readonly from: JobState,
    readonly to: JobState,
  ) {
    super(`a ${from} job cannot become ${to}`);
    this.name = 'InvalidTransitionError';
  }
}

export function assertTransition(from: JobState, to: JobState): void {
  if (!canTransition(from, to)) throw new InvalidTransitionError(from, to);
}
