import { InsufficientBalanceError, type Logger } from '@ocg/http';
import type { CreditsClient } from '../clients/credits.client';
import type { HoldRepository, HoldRow } from './hold.repository';
import type { SettlementService } from './settlement.service';

/**
 * Releases holds that pay for nothing: a post or an extension that died
 * between placing its hold and recording the job (a crash, a timeout), or an
 * extension that found its job already ended. "placing" rows do not know
 * whether client-manager placed the hold, so the hold is asked for again by
 * its reference (idempotent: it returns the existing one) and then released.
 */
export class LooseHolds {
  constructor(
    private readonly holds: HoldRepository,
    private readonly credits: CreditsClient,
    private readonly settlement: SettlementService,
    private readonly ageSeconds: number,
    private readonly logger: Logger,
  ) {}

  async releaseAll(limit = 100): Promise<number> {
    let released = 0;
    for (const hold of await this.holds.loose(this.ageSeconds, limit)) {
      if (!(await this.holds.takeLoose(hold.reference, this.ageSeconds))) continue;
      try {
        if (await this.release(hold)) released++;
      } catch (err) {
        this.logger.warn({ hold: hold.reference, err: (err as Error).message }, 'could not release a loose hold; retried later');
      }
    }
    return released;
  }

  private async release(hold: HoldRow): Promise<boolean> {
    const open = await this.adopt(hold);
    if (!open) return false;
    const closed = await this.settlement.close(open, 0);
    // Stryker disable next-line ConditionalExpression: close(hold, 0) answers true or throws (a settle of 0 is refused only for a closed hold, which close() records as closed)
    if (closed) this.logger.info({ hold: hold.reference, job: hold.job_address }, 'released a hold that paid for nothing');
    return closed;
  }

  /**
   * Learns whether the hold exists (placing it if it did not) and takes it over unless its request finished
   * meanwhile. An open row is asked for too (client-manager answers it by reference): one code path, on a rare path.
   */
  private async adopt(hold: HoldRow): Promise<HoldRow | undefined> {
    let holdId: string;
    try {
      holdId = (await this.credits.hold({ userId: hold.user_id, amount: Number(hold.amount), reference: hold.reference })).id;
    } catch (err) {
      if (!(err instanceof InsufficientBalanceError)) throw err;
      await this.holds.forget(hold.reference); // never placed, and cannot be now: nothing to release
      return undefined;
    }
    await this.holds.placed(this.holds.manager, hold.reference, holdId, false);
    // Ours now, or the request's if it finished meanwhile: released only while it still pays for nothing.
    const now = await this.holds.find(hold.reference);
    // Gone: its request was refused (402) and forgot it before our call placed it. Nothing else knows of that hold,
    // so it is released by its id (close() needs no row).
    if (!now) return { ...hold, hold_id: holdId };
    return now.state === 'open' && !now.applied ? now : undefined;
  }
}
