import { isStoreUnavailable, type Logger } from '@ocg/http';
import type { NodePresence } from '../nodes/node-presence';
import type { JobEvents } from './job-events';
import type { BillingEnd, JobRepository } from './job.repository';
import type { LooseHolds } from './loose-holds';
import type { MarketWaker } from './market-waker';
import { DURATION_ENDED } from './node-jobs.service';
import type { SettlementService } from './settlement.service';
import type { JobState } from './state';

export interface SweeperSettings {
  intervalMs: number;
  nodeSilenceSeconds: number;
  /** No silence verdict until Redis has answered this long again after a failure. */
  presenceGraceSeconds: number;
  /** A claim its node has not acknowledged within this long goes back to the queue. */
  claimAckSeconds: number;
  queueTimeoutSeconds: number;
  settleLeaseSeconds: number;
  idempotencyKeyTtlSeconds: number;
}

export interface SweeperDeps {
  presence: NodePresence;
  jobs: JobRepository;
  settlement: SettlementService;
  looseHolds: LooseHolds;
  /** Idempotency keys of posts and extensions. */
  requests: { expire(ttlSeconds: number): Promise<void> }[];
  events: JobEvents;
  waker: MarketWaker;
  logger: Logger;
}

const BATCH = 200;

/**
 * The one background loop: ends jobs whose paid duration is over, takes jobs
 * from nodes gone silent, fails jobs no node claimed, settles every ended job
 * not yet settled (also those a crash left behind), and releases holds that
 * pay for nothing; forgets old idempotency keys. Each step is a guarded UPDATE or a lease, so any number of
 * instances may sweep at once; a step that fails waits for the next round.
 */
export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** When a step last failed because Postgres (or Redis) could not be reached: nothing could be observed then. */
  private lastStoreFailureAt: number | undefined;

  constructor(
    private readonly d: SweeperDeps,
    private readonly s: SweeperSettings,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One full round (tests call it directly). */
  async sweep(): Promise<void> {
    const steps: [string, () => Promise<unknown>][] = [
      ['expire', () => this.expire()],
      ['unacknowledged claims', () => this.requeueUnacknowledged()],
      ['silent nodes', () => this.silentNodes()],
      ['queue timeout', () => this.queueTimeouts()],
      ['settle', () => this.settleEnded()],
      ['loose holds', () => this.d.looseHolds.releaseAll()],
      ['idempotency keys', () => Promise.all(this.d.requests.map((r) => r.expire(this.s.idempotencyKeyTtlSeconds)))],
    ];
    for (const [name, step] of steps) {
      if (this.stopped) return;
      await step().catch((err: Error) => {
        if (isStoreUnavailable(err)) this.lastStoreFailureAt = Date.now();
        this.d.logger.warn({ step: name, err: err.message }, 'sweep step failed; retried next round');
      });
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep().finally(() => this.schedule(this.s.intervalMs));
    }, ms);
    this.timer.unref();
  }

  private async expire(): Promise<void> {
    for (const { address } of await this.d.jobs.dueToEnd(BATCH)) await this.end(address, 'STOPPED', DURATION_ENDED, 'ends_at');
  }

  /**
   * A node is silent only when every witness agrees: no claim, report, sync
   * or finish for the silence window (our Postgres), no presence key (Redis,
   * which has answered for the grace period: a silence it could not observe
   * proves nothing), and no heartbeat in the window by host-manager's
   * lastSeenAt (its Postgres). A witness that cannot answer means no verdict
   * this round: infrastructure trouble never ends a healthy job.
   */
  private async silentNodes(): Promise<void> {
    for (const { node_address: node } of await this.d.jobs.quietNodes(this.s.nodeSilenceSeconds)) {
      if (!(await this.isSilent(node))) continue;
      const reason = `node ${node} went silent (no heartbeat or report for ${this.s.nodeSilenceSeconds} s)`;
      for (const { address } of await this.d.jobs.quietJobsOf(node, this.s.nodeSilenceSeconds)) await this.end(address, 'STOPPED', reason, 'last_seen_at');
    }
  }

  /** True when no store failure was seen for `seconds` (or ever): a silence in that time was observable. */
  private observedFor(seconds: number): boolean {
    return this.lastStoreFailureAt === undefined || Date.now() - this.lastStoreFailureAt >= seconds * 1000;
  }

  private async isSilent(node: string): Promise<boolean> {
    if (!this.observedFor(this.s.presenceGraceSeconds)) return false; // nodes could not reach us while Postgres was down
    const present = await this.d.presence.inRedis(node);
    if (present !== false || !this.d.presence.observedFor(this.s.presenceGraceSeconds * 1000)) return false;
    const record = await this.d.presence.record(node);
    const lastSeen = record?.lastSeenAt ? Date.parse(record.lastSeenAt) : 0;
    return Date.now() - lastSeen >= this.s.nodeSilenceSeconds * 1000;
  }

  /**
   * A claim whose answer its node never got (no report, sync or finish naming the job): offered again, to any node.
   * Not within a lease of a Postgres outage: the acknowledgement may have been refused by it.
   */
  private async requeueUnacknowledged(): Promise<void> {
    if (!this.observedFor(this.s.claimAckSeconds)) return;
    for (const job of await this.d.jobs.requeueUnacknowledged(this.s.claimAckSeconds, BATCH)) {
      this.d.logger.warn({ job: job.address, market: job.market_address }, `no acknowledgement of the claim within ${this.s.claimAckSeconds} s: back in the queue`);
      this.d.events.changed(job);
      this.d.waker.wake(job.market_address);
    }
  }

  private async queueTimeouts(): Promise<void> {
    const reason = `no node of the market claimed it within ${this.s.queueTimeoutSeconds} s`;
    for (const { address } of await this.d.jobs.queuedTooLong(this.s.queueTimeoutSeconds, BATCH)) await this.end(address, 'FAILED', reason, 'now()');
  }

  private async settleEnded(): Promise<void> {
    for (const { address } of await this.d.jobs.unsettled(this.s.settleLeaseSeconds, BATCH)) await this.d.settlement.settle(address);
  }

  private async end(address: string, to: JobState, reason: string, billingEnd: BillingEnd): Promise<void> {
    const moved = await this.d.jobs.end(this.d.jobs.manager, address, to, reason, billingEnd);
    if (!moved) return;
    this.d.logger.info({ job: address, status: to, reason }, 'job ended by the sweeper');
    this.d.events.changed(moved);
    await this.d.settlement.settle(address);
  }
}
