/**
 * The events of `GET /jobs/{job}/events` (Server-Sent Events): the SSE
 * `event:` field names the type, `data:` is one of these as JSON, `id:` is
 * the position to resume after (`Last-Event-ID`).
 */
import type { JobEndpointStatus, JobLogLine, JobRecord, JobState } from './jobs';
import type { NodeOpReport } from './node-jobs';

/** `snapshot` first (the job as GET /jobs/{job} answers it), then changes; `reset` when a resume point was too old. */
export type JobEventType = 'snapshot' | 'reset' | 'job' | 'op' | 'endpoint' | 'log';

export type JobSnapshotEvent = JobRecord;

/** The job's status changed (or its duration, by an extension). The stream ends after a final status. */
export interface JobStatusEvent {
  status: JobState;
  reason: string | null;
  node: string | null;
  durationSeconds: number | null;
  /** ISO 8601. */
  startedAt: string | null;
  endsAt: string | null;
  finishedAt: string | null;
}

/** An op's state as its node reported it, with whatever progress fields the report carries. */
export type JobOpEvent = Omit<NodeOpReport, 'logTail'>;

/** An endpoint went up (ONLINE), down (OFFLINE) or back to starting (PENDING). */
export interface JobEndpointEvent {
  op: string;
  port: number;
  url: string;
  status: JobEndpointStatus;
}

/** An op's last lines of output grew (at most 20, oldest first; nodeerr lines say what the node does: pulls, exits). */
export interface JobLogEvent {
  op: string;
  lines: JobLogLine[];
}

/** The `Last-Event-ID` given is older than the events kept: a snapshot follows, and the stream goes on from it. */
export interface JobResetEvent {
  lastEventId: string;
  message: string;
}
