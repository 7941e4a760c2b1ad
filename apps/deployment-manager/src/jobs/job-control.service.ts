import { createHash } from 'node:crypto';
import type { JobRecord } from '@ocg/contracts';
import { ConflictError, InsufficientBalanceError, ServiceUnavailableError } from '@ocg/http';
import type { CreditsClient } from '../clients/credits.client';
import { canonicalJson } from '@ocg/auth';
import { checkIdempotencyKey, IdempotencyKeyReusedError } from '../errors';
import type { Caller } from './caller';
import type { ExtendRequestRepository } from './extend-request.repository';
import { invalid } from './definition';
import type { HoldRepository } from './hold.repository';
import type { JobEvents } from './job-events';
import { notFound, type JobQueryService } from './job-query.service';
import type { JobRepository } from './job.repository';
import type { JobRow } from './job-row';
import type { SettlementService } from './settlement.service';
import { isFinal } from './state';

export interface JobControlDeps {
  jobs: JobRepository;
  holds: HoldRepository;
  credits: CreditsClient;
  settlement: SettlementService;
  query: JobQueryService;
  events: JobEvents;
  extendRequests: ExtendRequestRepository;
}

/** Under an Idempotency-Key: the key, for recording how far the extension got. */
interface Keyed {
  userId: string;
  key: string;
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
      const moved = await this.d.jobs.end(this.d.jobs.manager, address, 'STOPPED', STOPPED_BY_POSTER, 'now()', { userId: caller.userId });
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

  /**
   * Adds paid seconds: a hold of its own, placed before the duration grows, up to the market's maximum.
   * With an Idempotency-Key, the same request again answers the job without a second extension (even
   * when the first died halfway: it goes on with the same hold); the same key with another request is a 422.
   */
  async extend(caller: Caller, address: string, seconds: number, idempotencyKey?: string): Promise<JobRecord> {
    if (idempotencyKey === undefined) return this.extendOnce(caller, address, seconds);
    checkIdempotencyKey(idempotencyKey);
    await this.owned(caller, address);
    const hash = createHash('sha256')
      .update(canonicalJson({ job: address, seconds }))
      .digest('hex');
    const earlier = await this.d.extendRequests.reserve(caller.userId, idempotencyKey, hash, address);
    if (earlier.request_hash !== hash) throw new IdempotencyKeyReusedError(idempotencyKey, 'extension');
    if (earlier.completed) return this.d.query.view(address);
    try {
      return await this.extendOnce(caller, address, seconds, { userId: caller.userId, key: idempotencyKey });
    } catch (err) {
      if (err instanceof AlreadyExtended) return this.d.query.view(address);
      if (err instanceof InsufficientBalanceError || err instanceof ConflictError) await this.d.extendRequests.release(caller.userId, idempotencyKey);
      throw err;
    }
  }

  private async extendOnce(caller: Caller, address: string, seconds: number, keyed?: Keyed): Promise<JobRecord> {
    const job = await this.owned(caller, address);
    if (isFinal(job.status)) throw new ConflictError(`Job ${address} has ended (${job.status}); it cannot be extended`);
    if (job.duration_seconds + seconds > job.max_duration_seconds) throw beyondMaximum(job, seconds);
    const amount = Number(job.price_per_second) * seconds;
    const reference = amount > 0 ? await this.hold(caller, address, amount, seconds, keyed) : undefined;
    await this.apply(address, seconds, reference, keyed);
    return this.d.query.view(address);
  }

  private async hold(caller: Caller, job: string, amount: number, seconds: number, keyed?: Keyed): Promise<{ reference: string; holdId: string }> {
    const reference = keyed
      ? await this.keyedReference(keyed, { job, userId: caller.userId, amount, seconds })
      : await this.d.holds.beginNext(this.d.holds.manager, { job, userId: caller.userId, amount, seconds });
    try {
      const hold = await this.d.credits.hold({ userId: caller.userId, amount, reference });
      return { reference, holdId: hold.id };
    } catch (err) {
      if (err instanceof InsufficientBalanceError) await this.d.holds.forget(reference);
      throw err;
    }
  }

  /** The hold an extension under this key pays with: made once, with the key's record, so a retry uses the same one. */
  private keyedReference(keyed: Keyed, hold: { job: string; userId: string; amount: number; seconds: number }): Promise<string> {
    return this.d.jobs.transaction(async (m) => {
      const request = await this.d.extendRequests.lock(m, keyed.userId, keyed.key);
      if (request?.completed) throw new AlreadyExtended(); // the same request, sent twice at once: the other one applied it
      if (request?.hold_reference) {
        const earlier = await this.d.holds.find(request.hold_reference);
        if (earlier?.state === 'placing') return request.hold_reference;
        throw new ConflictError('An earlier attempt with this Idempotency-Key was abandoned and its credits released; extend again with a new key');
      }
      const reference = await this.d.holds.beginNext(m, hold);
      await this.d.extendRequests.setHold(m, keyed.userId, keyed.key, reference);
      return reference;
    });
  }

  /** The longer duration and the applied hold in one transaction; a job that ended meanwhile gets its hold back. */
  private async apply(address: string, seconds: number, held: { reference: string; holdId: string } | undefined, keyed?: Keyed): Promise<void> {
    let repeated = false;
    const moved = await this.d.jobs.transaction(async (m) => {
      if (keyed && (await this.d.extendRequests.lock(m, keyed.userId, keyed.key))?.completed) {
        repeated = true; // the same request, sent twice at once: the other one applied it
        return undefined;
      }
      const row = await this.d.jobs.extend(m, address, seconds);
      if (row && keyed) await this.d.extendRequests.complete(m, keyed.userId, keyed.key);
      if (held && !(await this.d.holds.placed(m, held.reference, held.holdId, row !== undefined))) {
        throw new ServiceUnavailableError('This extension took too long and its credits were released; extend again');
      }
      return row;
    });
    if (moved) {
      this.d.events.changed(moved);
      return;
    }
    if (repeated) return;
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

/** Thrown (and caught) when a concurrent identical request under the same key finished first. */
class AlreadyExtended extends Error {}

function beyondMaximum(job: JobRow, seconds: number) {
  const total = job.duration_seconds + seconds;
  return invalid([{ path: '/seconds', message: `would make the job's duration ${total} s, beyond the market's maximum of ${job.max_duration_seconds} s` }]);
}
