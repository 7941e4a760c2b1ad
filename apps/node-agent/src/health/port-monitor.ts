import type { HealthCheck } from '@ocg/job-definition';
import { probe, type Target } from './probes';

export interface HealthTiming {
  /** Startup probes ramp up from FIRST_PROBE_DELAY_MS to this. */
  startupIntervalMs: number;
  continuousIntervalMs: number;
  timeoutMs: number;
  /** Consecutive continuous failures before the endpoint goes offline. */
  failuresToOffline: number;
}

/** The first probe comes this soon after start; fast services are ready in tens of ms. */
const FIRST_PROBE_DELAY_MS = 25;

/**
 * Health of one exposed port of one container run: startup checks until they
 * all pass (none listed: a TCP connect), then the `continuous` ones on a
 * timer. `ready` is startup passed; `online` is ready and not failing.
 */
export class PortMonitor {
  ready = false;
  online = false;
  /** Checks are running (startup or continuous). */
  started = false;
  private generation = 0;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly port: number,
    private readonly checks: HealthCheck[],
    private readonly target: () => Target | undefined,
    private readonly timing: HealthTiming,
    private readonly onChange: () => void,
    /** Told each attempt's result (the metrics). */
    private readonly onProbe?: (check: HealthCheck | undefined, ok: boolean) => void,
  ) {}

  /** (Re)starts the startup checks, e.g. after the container restarted. */
  start(): void {
    this.halt();
    this.started = true;
    const generation = this.generation;
    void this.startup(generation, FIRST_PROBE_DELAY_MS);
  }

  /** The container is gone or restarting: not ready until startup passes again. */
  reset(): void {
    this.halt();
    this.started = false;
    this.set(false, false);
  }

  stop(): void {
    this.reset();
  }

  private halt(): void {
    this.generation++;
    clearTimeout(this.timer);
    this.failures = 0;
  }

  private async startup(generation: number, delay: number): Promise<void> {
    if (generation !== this.generation) return;
    if (await this.passes(this.checks)) {
      if (generation !== this.generation) return;
      this.set(true, true);
      this.scheduleContinuous(generation);
      return;
    }
    this.schedule(generation, delay, () => this.startup(generation, Math.min(delay * 2, this.timing.startupIntervalMs)));
  }

  private scheduleContinuous(generation: number): void {
    const continuous = this.checks.filter((c) => c.continuous);
    if (continuous.length === 0) return;
    this.schedule(generation, this.timing.continuousIntervalMs, async () => {
      const ok = await this.passes(continuous);
      if (generation !== this.generation) return;
      this.failures = ok ? 0 : this.failures + 1;
      if (ok) this.set(true, true);
      else if (this.failures >= this.timing.failuresToOffline) this.set(true, false);
      this.scheduleContinuous(generation);
    });
  }

  private schedule(generation: number, delay: number, next: () => Promise<void>): void {
    if (generation !== this.generation) return;
    this.timer = setTimeout(() => void next(), delay);
    this.timer.unref();
  }

  private async passes(checks: HealthCheck[]): Promise<boolean> {
    const target = this.target();
    if (!target) return false;
    const list = checks.length > 0 ? checks : [undefined];
    const results = await Promise.all(list.map((c) => probe(c, target, this.timing.timeoutMs)));
    if (this.onProbe) list.forEach((c, i) => this.onProbe?.(c, results[i]));
    return results.every(Boolean);
  }

  private set(ready: boolean, online: boolean): void {
    if (this.ready === ready && this.online === online) return;
    this.ready = ready;
    this.online = online;
    this.onChange();
  }
}
