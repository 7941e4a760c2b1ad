import type { Logger } from 'pino';
import type { ClaimJobResponse, JobAssignmentRecord, SyncJobsResponse } from '@ocg/contracts';
import type { NormalizedJobDefinition } from '@ocg/job-definition';
import type { JobAssignment } from '../executor/types';
import type { JobSink, JobSource } from '../seam';
import { Backoff, ControlPlaneError, sleep, type ControlPlaneClient } from './client';
import type { Membership } from './membership';

export interface SourceSettings {
  market: string;
  maxJobs: number;
  claimWaitSeconds: number;
  syncIntervalMs: number;
}

/** How long to wait between claims when long polling is off or the node is full. */
const POLL_MS = 1000;

/**
 * Jobs from deployment-manager: joins the market, then claims while there is
 * room (long-polling, backing off on errors) and hands each claim to the
 * executor; and syncs: lists the running jobs, stops those the control plane
 * says to stop, and passes on deadline changes (extensions; after a restart,
 * every adopted job's deadline is sent again, since the control plane owns it).
 */
export class ControlPlaneSource implements JobSource {
  private readonly closing = new AbortController();
  /** Aborted by pause (a draining node) or close: no more claims. */
  private readonly claiming = new AbortController();
  private claimLoopDone: Promise<void> = Promise.resolve();
  private readonly loops: Promise<void>[] = [];
  /** The deadline the executor has for each job. */
  private readonly deadlines = new Map<string, number>();

  constructor(
    private readonly client: ControlPlaneClient,
    private readonly membership: Membership,
    private readonly settings: SourceSettings,
    private readonly logger: Logger,
  ) {}

  async start(sink: JobSink): Promise<void> {
    await this.membership.join();
    this.claimLoopDone = this.claimLoop(sink);
    this.loops.push(this.claimLoopDone, this.syncLoop(sink));
  }

  async pause(): Promise<void> {
    this.claiming.abort();
    await this.claimLoopDone;
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.claiming.abort();
    await Promise.all([...this.loops, this.membership.stop()]);
  }

  private get signal(): AbortSignal {
    return this.closing.signal;
  }

  private async claimLoop(sink: JobSink): Promise<void> {
    const backoff = new Backoff();
    while (!this.claiming.signal.aborted) {
      if (sink.running().length >= this.settings.maxJobs) {
        await sleep(POLL_MS, this.claiming.signal);
        continue;
      }
      try {
        const claimed = await this.claim();
        backoff.reset();
        if (claimed) this.run(sink, claimed);
        else if (this.settings.claimWaitSeconds === 0) await sleep(POLL_MS, this.claiming.signal);
      } catch (err) {
        if (this.claiming.signal.aborted) return;
        this.logger.warn({ err: (err as Error).message }, 'claim failed; backing off');
        if (err instanceof ControlPlaneError && err.status === 403) await this.membership.register().catch(() => undefined);
        await sleep(backoff.next(), this.claiming.signal);
      }
    }
  }

  private async claim(): Promise<JobAssignmentRecord | null> {
    const wait = this.settings.claimWaitSeconds;
    const res = await this.client.post<ClaimJobResponse>(
      '/node-jobs/claim',
      { market: this.settings.market, waitSeconds: wait },
      { extraTimeoutMs: wait * 1000, signal: this.claiming.signal },
    );
    return res.assignment;
  }

  private run(sink: JobSink, claimed: JobAssignmentRecord): void {
    const assignment: JobAssignment = { ...claimed, definition: claimed.definition as unknown as NormalizedJobDefinition };
    this.deadlines.set(claimed.job, claimed.deadline);
    this.logger.info({ job: claimed.job, deadline: new Date(claimed.deadline).toISOString() }, 'claimed a job');
    // Starting can take minutes (image pulls): the claim loop goes on meanwhile. A job that cannot start ends failed and is reported.
    sink.run(assignment).catch((err: Error) => this.logger.warn({ job: claimed.job, err: err.message }, 'job did not start'));
  }

  private async syncLoop(sink: JobSink): Promise<void> {
    while (!this.signal.aborted) {
      await this.sync(sink).catch((err: Error) => this.signal.aborted || this.logger.warn({ err: err.message }, 'sync failed'));
      await sleep(this.settings.syncIntervalMs, this.signal);
    }
  }

  /** One sync: stop what the control plane says, pass on changed deadlines. */
  async sync(sink: JobSink): Promise<void> {
    const running = sink.running();
    const res = await this.client.post<SyncJobsResponse>('/node-jobs/sync', { running }, { signal: this.signal });
    for (const { job, reason } of res.stop) {
      this.logger.info({ job, reason }, 'the control plane stops a job');
      sink.stop(job, reason).catch((err: Error) => this.logger.debug({ job, err: err.message }, 'stop: job already gone'));
    }
    for (const { job, deadline } of res.deadlines) {
      if (this.deadlines.get(job) === deadline) continue;
      await sink.extend(job, deadline).catch((err: Error) => this.logger.warn({ job, err: err.message }, 'deadline not updated'));
      this.deadlines.set(job, deadline);
    }
    const live = new Set(running);
    for (const job of this.deadlines.keys()) if (!live.has(job) && !res.deadlines.some((d) => d.job === job)) this.deadlines.delete(job);
  }
}
