import type { Counter, Histogram } from 'prom-client';
import type { Metrics } from '@ocg/http';
import type { JobRepository } from './job.repository';

/** How long one read of the job counts is reused between scrapes. */
const CACHE_MS = 5_000;

/** From a claim at once to a job that waited most of a day. */
const WAIT_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14400, 86400];

/**
 * Jobs as Prometheus sees them: how many each market has in each state and
 * how old its oldest queued job is (two indexed queries when Prometheus
 * scrapes, at most once per CACHE_MS), and what this process did: claims
 * answered and settlements tried. Labels are markets and states, never jobs.
 */
export class JobMetrics {
  private readonly claims: Counter<'market' | 'outcome'>;
  private readonly waited: Histogram<'market'>;
  private readonly settlements: Counter<'outcome'>;
  private readonly billed: Counter;

  constructor(metrics: Metrics, jobs: JobRepository) {
    this.claims = metrics.counter('ocg_job_claims_total', 'Claims answered to nodes, by market and outcome (assigned: a job went out; empty: none was queued)', [
      'market',
      'outcome',
    ]);
    this.waited = metrics.histogram('ocg_job_queue_wait_seconds', 'How long claimed jobs waited in the queue', ['market'], WAIT_BUCKETS);
    this.settlements = metrics.counter('ocg_job_settlements_total', 'Settlements of ended jobs, by outcome (settled; retry: the sweeper tries again)', ['outcome']);
    this.billed = metrics.counter('ocg_job_billed_units_total', 'Credit units captured from the holds of settled jobs');
    metrics.sampled(
      CACHE_MS,
      {
        jobs: { name: 'ocg_jobs', help: 'Jobs by market and state (final states count every job that ever ended so)', labelNames: ['market', 'state'] },
        queueAge: { name: 'ocg_queue_oldest_age_seconds', help: "Age of each market's oldest queued job (no series: the queue is empty)", labelNames: ['market'] },
      },
      async () => {
        const [counts, ages] = await Promise.all([jobs.countsByMarket(), jobs.queueAges()]);
        return {
          jobs: counts.map((c) => ({ labels: { market: c.market, state: c.status }, value: Number(c.count) })),
          queueAge: ages.map((a) => ({ labels: { market: a.market }, value: Number(a.seconds) })),
        };
      },
    );
  }

  claimed(market: string, job: { created_at: Date } | undefined): void {
    this.claims.inc({ market, outcome: job ? 'assigned' : 'empty' });
    if (job) this.waited.observe({ market }, Math.max(0, (Date.now() - job.created_at.getTime()) / 1000));
  }

  settled(ok: boolean, cost = 0): void {
    this.settlements.inc({ outcome: ok ? 'settled' : 'retry' });
    if (ok && cost > 0) this.billed.inc(cost);
  }
}
