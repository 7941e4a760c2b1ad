/**
 * The seam to the control plane. The executor is a JobSink; a JobSource
 * feeds it (today: LocalJobSource for `--run` and tests; next: claims from
 * deployment-manager) and a Reporter hears what happens (next: reports to
 * deployment-manager, heartbeats from host-manager).
 */
import type { EndpointReport, JobAssignment, JobSummary, OpStatus } from './executor/types';

export interface JobSink {
  /** Starts the job; idempotent by job address. */
  run(assignment: JobAssignment): Promise<void>;
  /** Ends the job: ops stopped, everything removed. */
  stop(job: string, reason: string): Promise<void>;
  /** A new end of the job's duration (Unix ms). */
  extend(job: string, deadline: number): Promise<void>;
  /** Addresses of the jobs running here, including those adopted after a restart. */
  running(): string[];
}

export interface JobSource {
  /** Begins handing work to `sink`; resolves once it does. */
  start(sink: JobSink): Promise<void>;
  /** Takes no new jobs (the node is draining); syncs, reports and membership go on until close. */
  pause?(): Promise<void>;
  close(): Promise<void>;
}

/** Calls are fire-and-forget except jobEnded, which cleanup waits for (bounded by REPORT_TIMEOUT_MS). */
export interface Reporter {
  /** A job started, or was adopted by a restarted agent (`adopted`). */
  jobStarted(job: string, adopted: boolean): void;
  opChanged(job: string, op: OpStatus): void;
  endpointChanged(job: string, op: string, endpoint: EndpointReport): void;
  jobEnded(summary: JobSummary): Promise<void>;
}
