import type { EndpointReport, JobSummary, OpStatus } from '../../src/executor/types';
import type { Reporter } from '../../src/seam';

/** Keeps what the executor reported, for assertions on the seam. */
export class RecordingReporter implements Reporter {
  readonly started: { job: string; adopted: boolean }[] = [];
  readonly ops: { job: string; op: OpStatus; at: number }[] = [];
  readonly endpoints: { job: string; op: string; endpoint: EndpointReport; at: number }[] = [];
  readonly ended: JobSummary[] = [];

  jobStarted(job: string, adopted: boolean): void {
    this.started.push({ job, adopted });
  }

  opChanged(job: string, op: OpStatus): void {
    this.ops.push({ job, op, at: Date.now() });
  }

  endpointChanged(job: string, op: string, endpoint: EndpointReport): void {
    this.endpoints.push({ job, op, endpoint, at: Date.now() });
  }

  async jobEnded(summary: JobSummary): Promise<void> {
    this.ended.push(summary);
  }

  /** The states an op went through, in order, without repeats. */
  statesOf(job: string, op: string): string[] {
    const states = this.ops.filter((e) => e.job === job && e.op.id === op).map((e) => e.op.state);
    return states.filter((s, i) => s !== states[i - 1]);
  }
}
