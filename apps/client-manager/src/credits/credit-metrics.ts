import type { Counter } from 'prom-client';
import type { Metrics } from '@ocg/http';
import type { LedgerRepository } from './ledger.repository';

/** How long the credits held over all users is reused between scrapes. */
const HELD_CACHE_MS = 10_000;

/**
 * Holds and settlements as Prometheus sees them: counters of what this
 * process wrote (counted once its transaction committed), and the credits
 * held over every user, summed from the balance rows when Prometheus scrapes.
 */
export class CreditMetrics {
  private readonly holds: Counter<'outcome'>;
  private readonly settlements: Counter<'final'>;
  private readonly units: Counter<'kind'>;

  constructor(metrics: Metrics, ledger: LedgerRepository) {
    this.holds = metrics.counter('ocg_credit_holds_total', 'Credit hold requests answered, by outcome (placed, repeated: the same reference again, insufficient)', ['outcome']);
    this.settlements = metrics.counter('ocg_credit_settlements_total', 'Hold settlements written (final: the hold closed)', ['final']);
    this.units = metrics.counter('ocg_credit_units_total', 'Credit units moved out of holds, by kind (settled: captured; released: given back)', ['kind']);
    metrics.sampled(
      HELD_CACHE_MS,
      { held: { name: 'ocg_credit_units_held', help: 'Credit units held for queued and running jobs, over all users', labelNames: [] } },
      async () => ({
        held: [{ labels: {}, value: await ledger.totalHeld() }],
      }),
    );
  }

  hold(outcome: 'placed' | 'repeated' | 'insufficient'): void {
    this.holds.inc({ outcome });
  }

  settled(amount: number, released: number, final: boolean): void {
    this.settlements.inc({ final: String(final) });
    this.units.inc({ kind: 'settled' }, amount);
    if (released > 0) this.units.inc({ kind: 'released' }, released);
  }

  released(amount: number): void {
    this.units.inc({ kind: 'released' }, amount);
  }
}
