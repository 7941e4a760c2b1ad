import type { Counter, Histogram } from 'prom-client';
import type { Metrics } from '@ocg/http';
import type { HealthCheck } from '@ocg/job-definition';

/** From a cached layer check to a large image on a slow link. */
const PULL_BUCKETS = [0.05, 0.25, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

export type PullOutcome = 'cached' | 'pulled' | 'failed';

/** What the running jobs look like now: read from the executor when Prometheus scrapes (no engine call). */
export interface NodeSnapshot {
  jobs: number;
  /** Each op that has a container, by its state. */
  containers: Record<string, number>;
}

/**
 * The node agent's own series: containers and jobs (read from memory when
 * Prometheus scrapes), image pulls and their duration, health-check results,
 * and ingress requests per job. Job labels exist only for running jobs: a
 * node runs at most its capacity of them, and `forgetJob` removes a job's
 * series when it ends, so the label set stays bounded.
 */
export class NodeMetrics {
  private readonly pulls: Counter<'outcome'>;
  private readonly pullSeconds: Histogram<'outcome'>;
  private readonly checks: Counter<'kind' | 'result'>;
  private readonly ingress: Counter<'job_address' | 'code'>;

  constructor(
    readonly metrics: Metrics,
    snapshot: () => NodeSnapshot,
  ) {
    this.pulls = metrics.counter('ocg_node_image_pulls_total', 'Images made ready for ops, by outcome (cached: used as it was; pulled; failed)', ['outcome']);
    this.pullSeconds = metrics.histogram('ocg_node_image_pull_duration_seconds', 'How long making an image ready took, by outcome', ['outcome'], PULL_BUCKETS);
    this.checks = metrics.counter('ocg_node_health_checks_total', 'Health-check attempts against job endpoints, by kind (tcp, http, websocket) and result (pass, fail)', [
      'kind',
      'result',
    ]);
    this.ingress = metrics.counter('ocg_node_ingress_requests_total', 'Requests proxied to running jobs, by job address and status class (series removed when the job ends)', [
      'job_address',
      'code',
    ]);
    metrics.gauge('ocg_node_jobs_running', 'Jobs running on this node', [], (gauge) => gauge.set(snapshot().jobs));
    metrics.gauge('ocg_node_containers', "Job containers on this node, by their op's state", ['state'], (gauge) => {
      gauge.reset();
      for (const [state, count] of Object.entries(snapshot().containers)) gauge.set({ state }, count);
    });
  }

  pulled(outcome: PullOutcome, seconds: number): void {
    this.pulls.inc({ outcome });
    this.pullSeconds.observe({ outcome }, seconds);
  }

  checked(check: HealthCheck | undefined, ok: boolean): void {
    this.checks.inc({ kind: check?.type ?? 'tcp', result: ok ? 'pass' : 'fail' });
  }

  proxied(job: string, status: number): void {
    this.ingress.inc({ job_address: job, code: `${Math.floor(status / 100)}xx` });
  }

  /**
   * The job ended: its series go (Prometheus keeps what it scraped), and again
   * a minute later for requests that were still streaming when it ended.
   */
  forgetJob(job: string): void {
    const remove = () => {
      for (const code of STATUS_CLASSES) this.ingress.remove({ job_address: job, code });
    };
    remove();
    setTimeout(remove, 60_000).unref();
  }
}
