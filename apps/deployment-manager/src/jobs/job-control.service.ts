import type { DataSource } from 'typeorm';
import type { JobRecord } from '@ocg/contracts';
import { ConflictError, ServiceUnavailableError } from '@ocg/http';
import type { CreditsClient } from '../clients/credits.client';
import { InsufficientBalanceError } from '../errors';
import type { Caller } from './caller';
import { invalid } from './definition';
import type { HoldRepository } from './hold.repository';
import type { JobEvents } from './job-events';
import { notFound, type JobQueryService } from './job-query.service';
import type { JobRepository } from './job.repository';
import type { JobRow } from './job-row';
import type { SettlementService } from './settlement.service';
import { isFinal } from './state';

export interface JobControlDeps {
  db: DataSource;
  jobs: JobRepository;
  holds: HoldRepository;
  credits: CreditsClient;
  settlement: SettlementService;
  query: JobQueryService;
  events: JobEvents;
}

export const STOPPED_BY_POSTER = 'stopped by the poster';

/** The poster stopping or extending a job. */
export class JobControlService {
  constructor(private readonly d: JobControlDeps) {}

  /**
   * Stops the job now: billing ends at this moment, the hold settles, and
   * its node stops the containers at its next sync. Stopping a stopped job
   * answers it again; a job that completed or failed cannot be stopped.
   */
  async stop(caller: Caller, address: string): Promise<JobRecord> {
    const job = await this.owned(caller, address);
    if (job.status !== 'STOPPED') {
      const moved = await this.d.jobs.end(this.d.db, address, 'STOPPED', STOPPED_BY_POSTER, 'now()', { userId: caller.userId });
      if (!moved) {
        const now = await this.d.jobs.get(address);
        if (now.status !== 'STOPPED') throw new ConflictError(`Job ${address} has already ended (${now.status}); there is nothing to stop`);
      } else {
        this.d.events.changed(moved);
        await this.d.settlement.settle(address);
      }
    }
    return this.d.query.view(address);
  }

  /** Adds paid seconds: a hold of its own, placed before the duration grows, up to the market's maximum. */
  async extend(caller: Caller, address: string, seconds: number): Promise<JobRecord> {
    const job = await this.owned(caller, address);
    if (isFinal(job.status)) throw new ConflictError(`Job ${address} has ended (${job.status}); it cannot be extended`);
    if (job.duration_seconds + seconds > job.max_duration_seconds) throw beyondMaximum(job, seconds);
    const amount = Number(job.price_per_second) * seconds;
    const reference = amount > 0 ? await this.hold(caller, address, amount, seconds) : undefined;
    await this.apply(address, seconds, reference);
    return this.d.query.view(address);
  }

  private async hold(caller: Caller, job: string, amount: number, seconds: number): Promise<{ reference: string; holdId: string }> {
    const reference = await this.d.holds.beginNext({ job, userId: caller.userId, amount, seconds });
    try {
      const hold = await this.d.credits.hold({ userId: caller.userId, amount, reference });
      return { reference, holdId: hold.id };
    } catch (err) {
      if (err instanceof InsufficientBalanceError) await this.d.holds.forget(reference);
      throw err;
    }
  }

  /** The longer duration and the applied hold in one transaction; a job that ended meanwhile gets its hold back. */
  private async apply(address: string, seconds: number, held: { reference: string; holdId: string } | undefined): Promise<void> {
    const moved = await this.d.db.transaction(async (m) => {
      const row = await this.d.jobs.extend(m, address, seconds);
      if (held && !(await this.d.holds.placed(m, held.reference, held.holdId, row !== undefined))) {
        throw new ServiceUnavailableError('This extension took too long and its credits were released; extend again');
      }
      return row;
    });
    if (moved) {
      this.d.events.changed(moved);
      return;
    }
    if (held) await this.releaseNow(held.reference);
    const now = await this.d.jobs.get(address);
    if (isFinal(now.status)) throw new ConflictError(`Job ${address} ended (${now.status}) while it was being extended; the credits held for the extension were released`);
    throw beyondMaximum(now, seconds);
  }

  /** Best effort: the sweeper releases it later otherwise. */
  private async releaseNow(reference: string): Promise<void> {
    const hold = await this.d.holds.find(reference);
    if (hold) await this.d.settlement.close(hold, 0).catch(() => undefined);
  }

  private async owned(caller: Caller, address: string): Promise<JobRow> {
    const job = await this.d.jobs.find(address);
    if (!job || job.user_id !== caller.userId) throw notFound(address);
    return job;
  }
}

function beyondMaximum(job: JobRow, seconds: number) {
  const total = job.duration_seconds + seconds;
  return invalid([{ path: '/seconds', message: `would make the job's duration ${total} s, beyond the market's maximum of ${job.max_duration_seconds} s` }]);
}
