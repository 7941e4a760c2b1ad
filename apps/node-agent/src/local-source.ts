/** In-process implementations of the seam: `--run` and tests hand jobs over directly. */
import type { Logger } from 'pino';
import type { EndpointReport, JobAssignment, JobSummary, OpStatus } from './executor/types';
import type { JobSink, JobSource, Reporter } from './seam';

/** Jobs submitted in this process; those submitted before `start` wait for the sink. */
export class LocalJobSource implements JobSource {
  private sink: JobSink | undefined;
  private readonly queue: JobAssignment[] = [];

  async start(sink: JobSink): Promise<void> {
    this.sink = sink;
    for (const job of this.queue.splice(0)) await sink.run(job);
  }

  async submit(job: JobAssignment): Promise<void> {
    if (this.sink) await this.sink.run(job);
    else this.queue.push(job);
  }

  async close(): Promise<void> {
    this.sink = undefined;
  }
}

/** Writes what happens as log lines: the control plane's view, for development. */
export class LogReporter implements Reporter {
  constructor(private readonly logger: Logger) {}

  jobStarted(job: string, adopted: boolean): void {
    this.logger.info({ job, adopted }, adopted ? 'job adopted' : 'job started');
  }

  opChanged(job: string, op: OpStatus): void {
    const { endpoints: _e, ...rest } = op;
    this.logger.info({ job, op: rest }, `op ${op.id} ${op.state}`);
  }

  endpointChanged(job: string, op: string, endpoint: EndpointReport): void {
    // An endpoint is reported again once its forward is in place (ADR 0092): the line says so rather than repeating its status.
    this.logger.info({ job, op, endpoint }, `endpoint ${endpoint.host} ${endpoint.status}${endpoint.forward ? `, forwarded at ${endpoint.forward}` : ''}`);
  }

  async jobEnded(summary: JobSummary): Promise<void> {
    this.logger.info({ job: summary.job, state: summary.state, reason: summary.reason, results: summary.results }, `job ${summary.state}`);
  }
}

/** Several reporters as one (e.g. logs plus a test's recorder). */
export class FanoutReporter implements Reporter {
  constructor(private readonly reporters: Reporter[]) {}

  jobStarted(job: string, adopted: boolean): void {
    for (const r of this.reporters) r.jobStarted(job, adopted);
  }

  opChanged(job: string, op: OpStatus): void {
    for (const r of this.reporters) r.opChanged(job, op);
  }

  endpointChanged(job: string, op: string, endpoint: EndpointReport): void {
    for (const r of this.reporters) r.endpointChanged(job, op, endpoint);
  }

  async jobEnded(summary: JobSummary): Promise<void> {
    await Promise.all(this.reporters.map((r) => r.jobEnded(summary)));
  }
}
