import { withSpan, type Logger } from '@ocg/http';
import { isRefused, type CreditsClient } from '../clients/credits.client';
import type { HoldRepository, HoldRow } from './hold.repository';
import type { JobRepository } from './job.repository';
import type { JobRow } from './job-row';
import type { JobMetrics } from './job-metrics';

/** Seconds charged: start to end rounded up to whole seconds, never more than was paid for. */
export function billedSeconds(job: Pick<JobRow, 'started_at' | 'finished_at' | 'duration_seconds'>): number {
  if (!job.started_at || !job.finished_at) return 0;
  const ms = Math.max(0, job.finished_at.getTime() - job.started_at.getTime());
  return Math.min(job.duration_seconds, Math.ceil(ms / 1000));
}

/** How much each applied hold captures: the cost taken from the holds in order; the rest of each is released. */
export function allocate(cost: number, holds: Pick<HoldRow, 'reference' | 'amount' | 'settle_amount'>[]): Map<string, number> {
  const plan = new Map<string, number>();
  let remaining = cost;
  for (const h of holds) {
    const amount = h.settle_amount !== null ? Number(h.settle_amount) : Math.min(remaining, Number(h.amount));
    plan.set(h.reference, amount);
    remaining -= amount;
  }
  return plan;
}

/**
 * Settles ended jobs: the seconds run are captured from the job's holds, the
 * rest released. Crash-safe and safe to run anywhere at once: the cost and
 * each hold's share are written before client-manager is called, a lease
 * keeps two sweepers off one job, and a settle that client-manager refuses
 * as already done (409, the answer of a repeated final settle) is checked
 * against the hold's own state before it is recorded.
 */
export class SettlementService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly holds: HoldRepository,
    private readonly credits: CreditsClient,
    private readonly leaseSeconds: number,
    private readonly logger: Logger,
    private readonly metrics?: JobMetrics,
  ) {}

  /** True when the job is settled after this call. Never throws: what fails is retried by the sweeper. */
  async settle(address: string): Promise<boolean> {
    const job = await this.jobs.leaseSettlement(address, this.leaseSeconds).catch(() => undefined);
    if (!job) return false;
    try {
      const settled = await withSpan('job.settle', () => this.settleLeased(job), { job: address });
      if (!settled) this.metrics?.settled(false);
      return settled;
    } catch (err) {
      this.logger.warn({ job: address, err: (err as Error).message }, 'settlement failed; the sweeper retries');
      this.metrics?.settled(false);
      return false;
    } finally {
      // The next sweep may retry at once (a settled job's lease is already gone: this changes nothing then).
      await this.jobs.releaseLease(address).catch(() => undefined);
    }
  }

  private async settleLeased(job: JobRow): Promise<boolean> {
    const billed = job.billed_seconds ?? billedSeconds(job);
    const cost = job.cost !== null ? Number(job.cost) : billed * Number(job.price_per_second);
    await this.jobs.fixCost(job.address, billed, cost);
    const applied = (await this.holds.ofJob(job.address)).filter((h) => h.applied);
    const plan = allocate(cost, applied);
    let closed = 0;
    // A hold closed by an earlier attempt is closed again: client-manager answers 409, and close() finds it closed.
    for (const hold of applied) if (await this.close(hold, plan.get(hold.reference) ?? 0)) closed++;
    if (closed < applied.length) return false;
    await this.jobs.markSettled(job.address);
    this.metrics?.settled(true, cost);
    this.logger.info({ job: job.address, billedSeconds: billed, cost }, 'job settled');
    return true;
  }

  /** Captures `amount` from the hold and releases the rest; true once client-manager's hold is closed. */
  async close(hold: HoldRow, amount: number): Promise<boolean> {
    if (!hold.hold_id) throw new Error(`hold ${hold.reference} is not placed yet`);
    await this.holds.plan(hold.reference, amount);
    const answer = await this.credits.settleFinal(hold.hold_id, hold.user_id, amount);
    // Stryker disable next-line ConditionalExpression,BlockStatement: the refused path asks for the hold, now closed with what this settle captured, and records that: taking the answer saves a call
    if (!isRefused(answer)) {
      await this.holds.closed(hold.reference, answer.settled);
      return true;
    }
    // A repeated final settle answers 409: our earlier one may have gone through before a crash. Ask the hold.
    const current = await this.credits.hold({ userId: hold.user_id, amount: Number(hold.amount), reference: hold.reference });
    if (current.status !== 'closed') {
      this.logger.error({ hold: hold.reference, amount, message: answer.message }, 'client-manager refused a settle of an open hold');
      return false;
    }
    if (current.settled !== amount) this.logger.error({ hold: hold.reference, planned: amount, settled: current.settled }, 'a closed hold captured another amount than planned');
    await this.holds.closed(hold.reference, current.settled);
    return true;
  }
}
