import type { EndpointForwards } from '../docker/forwards';
import type { NetworkIsolation } from '../docker/isolation';
import type Docker from 'dockerode';
import type { Logger } from 'pino';
import type { JobSink, Reporter } from '../seam';
import { EngineEvents, type ContainerEvent } from '../docker/events';
import { jobLimits, type NodeLimits } from '../docker/job-limits';
import type { HealthTiming } from '../health/port-monitor';
import type { ImagePolicy } from '../docker/images';
import { Cleaner, type Leftovers } from './cleaner';
import { DiskWatcher } from './disk-watcher';
import { conflict, notFound } from './errors';
import { Pool } from './pool';
import * as control from './job-control';
import { JobRunner } from './job-runner';
import { findEndpoint, jobResults, jobStatus, opStatus } from './job-view';
import type { LogBuffer } from './log-buffer';
import type { OpRunner } from './op-runner';
import { findJobs } from './restore';
import { orphanedJobs } from '../docker/objects';
import type { Metrics } from '@ocg/http';
import type { ResourceStage } from '../resources/stage';
import { NodeMetrics, type NodeSnapshot } from '../node-metrics';
import type { JobAssignment, JobResults, JobStatus, JobSummary, OpStatus } from './types';

/** How long closing waits for the ends already under way (containers' stop grace, the report, the cleanup). */
const ENDING_ON_CLOSE_MS = 30_000;

export interface ExecutorOptions {
  docker: Docker;
  logger: Logger;
  reporter: Reporter;
  /** Scopes the engine objects this executor owns. */
  node: string;
  /** `%%global.node%%` */
  nodeAddress: string;
  domain: string;
  gpus: boolean;
  /** Keeps job networks off the host and metadata addresses; absent: not isolated. */
  isolation?: NetworkIsolation;
  /** Ready endpoints forwarded by the kernel (FORWARD_PORTS); absent: everything through the ingress. */
  forwards?: EndpointForwards;
  /** The node's own limits; each job's are the market's within them. */
  limits: NodeLimits;
  health: HealthTiming;
  logLimits: { lines: number; bytes: number };
  pullTimeoutMs: number;
  stopGraceSeconds: number;
  reportTimeoutMs: number;
  /** How long an ended job stays readable. */
  retentionMs: number;
  /** Container creates and starts at once, over all jobs. */
  startConcurrency: number;
  /** Container stops and removals at once, over all jobs. */
  stopConcurrency: number;
  images: ImagePolicy;
  /** How often the jobs' disk use is measured against their market limits; 0: never. */
  diskCheckIntervalMs: number;
  /** Remote resources (`args.resources`); absent: ops with resources fail. */
  resources?: ResourceStage;
  /** The agent's registry when it serves metrics: jobs, containers, pulls, health checks and ingress requests go there. */
  metrics?: Metrics;
}

/** Where the ingress sends a request: a container address, or why not. */
export type IngressTarget = { kind: 'proxy'; host: string; port: number; job: string } | { kind: 'not-found' } | { kind: 'unavailable' };

/**
 * Runs normalized job definitions in Docker: the public face of the node's
 * runtime, used by the node API, the ingress and the job source.
 */
export class Executor implements JobSink {
  private readonly jobs = new Map<string, JobRunner>();
  /** Ended jobs, readable for a while; keyed like `jobs` by the lowercase address. */
  private readonly finished = new Map<string, JobRunner>();
  /** Present when the agent serves metrics. */
  readonly metrics?: NodeMetrics;
  private readonly events: EngineEvents;
  private readonly startPool: Pool;
  private readonly stopPool: Pool;
  private readonly cleaner: Cleaner;
  private readonly disk: DiskWatcher;
  private closed = false;
  private draining = false;

  constructor(private readonly opts: ExecutorOptions) {
    if (opts.metrics) this.metrics = new NodeMetrics(opts.metrics, () => this.snapshot());
    this.events = new EngineEvents(
      opts.docker,
      opts.node,
      opts.logger,
      (e) => this.onEvent(e),
      () => this.resync(),
    );
    this.startPool = new Pool(opts.startConcurrency);
    this.stopPool = new Pool(opts.stopConcurrency);
    this.cleaner = new Cleaner(opts.docker, opts.node, this.stopPool, opts.logger);
    this.disk = new DiskWatcher(opts.docker, opts.node, opts.diskCheckIntervalMs, opts.logger, () =>
      [...this.jobs.values()].filter((r) => !r.ended).map((r) => ({ job: r.job, limits: r.assignment.containerLimits, fail: (reason: string) => void r.end('failed', reason) })),
    );
  }

  /** Subscribes to engine events, then adopts the jobs a previous agent left running. Returns their addresses. */
  async start(): Promise<string[]> {
    await this.events.start();
    const { jobs, unreadable } = await findJobs(this.opts.docker, this.opts.node);
    for (const network of unreadable) this.opts.logger.error({ network }, 'a job network without a readable definition: left as it is');
    // A cleanup the previous agent did not finish: nothing would ever adopt these.
    for (const job of await orphanedJobs(this.opts.docker, this.opts.node)) void this.cleaner.clean(job);
    for (const restored of jobs) {
      const runner = this.runner(restored.assignment, restored.startedAt);
      await runner.adopt(restored);
      this.opts.logger.info({ job: runner.job, ended: restored.ended !== undefined }, 'adopted a running job');
    }
    this.disk.start();
    return jobs.map((r) => r.assignment.job);
  }

  async run(assignment: JobAssignment): Promise<void> {
    const key = assignment.job.toLowerCase();
    if (this.jobs.has(key)) return;
    if (this.draining) throw conflict(`this node is shutting down: job ${assignment.job} not started`);
    if (this.finished.has(key)) throw conflict(`job ${assignment.job} already ran on this node`);
    const runner = this.runner(assignment, Date.now());
    try {
      await runner.begin();
    } catch (err) {
      await runner.end('failed', (err as Error).message);
      throw err;
    }
  }

  async stop(job: string, reason: string): Promise<void> {
    await this.live(job).end('stopped', reason);
  }

  /** Stops and waits for the summary (what `--run` and tests read). */
  async stopAndWait(job: string, reason: string): Promise<JobSummary> {
    return this.live(job).end('stopped', reason);
  }

  /** Resolves with the summary once the job ended and its objects are removed. */
  whenEnded(job: string): Promise<JobSummary> {
    return this.known(job).whenEnded();
  }

  async extend(job: string, deadline: number): Promise<void> {
    await this.live(job).extend(deadline);
  }

  /**
   * Ends every job (the node shuts down and takes its jobs with it): each is
   * stopped, reported and removed; then waits (bounded) until the engine
   * holds nothing of them. Answers what is still left.
   */
  async drain(reason: string, timeoutMs = 60_000): Promise<Leftovers> {
    this.draining = true;
    await Promise.all([...this.jobs.values()].map((runner) => runner.end('stopped', reason)));
    return this.cleaner.settle(timeoutMs);
  }

  /** Objects of ended jobs still in the engine (removal is retried until there are none). */
  leftovers(): Leftovers {
    return this.cleaner.leftovers();
  }

  running(): string[] {
    return [...this.jobs.values()].map((r) => r.job);
  }

  /** The job, running or recently ended; lookup ignores case, as host names do. */
  find(job: string): JobRunner | undefined {
    const key = job.toLowerCase();
    return this.jobs.get(key) ?? this.finished.get(key);
  }

  poster(job: string): string | undefined {
    return this.find(job)?.poster;
  }

  status(job: string): JobStatus {
    return jobStatus(this.known(job), this.opts.domain);
  }

  results(job: string): JobResults {
    return jobResults(this.known(job));
  }

  logs(job: string, opId: string): LogBuffer {
    const runner = this.known(job);
    const op = runner.op(opId);
    if (!op) throw notFound(`job ${runner.job} has no op ${opId}`);
    return op.logs;
  }

  stopOp = (job: string, group: string, op: string) => this.control(job, (r) => control.stopOp(r, group, op));
  restartOp = (job: string, group: string, op: string) => this.control(job, (r) => control.restartOp(r, group, op));
  stopGroup = (job: string, group: string) => this.control(job, (r) => control.stopGroup(r, group));
  restartGroup = (job: string, group: string) => this.control(job, (r) => control.restartGroup(r, group));

  /** For the ingress: `rest` is what follows the job address in the host's first label, split on `-`. */
  ingressTarget(job: string, rest: string[]): IngressTarget {
    const runner = this.jobs.get(job.toLowerCase());
    const found = runner && findEndpoint(runner, rest);
    if (!found || found.op.terminal || !found.op.ip) return { kind: 'not-found' };
    const monitor = found.op.monitors.find((m) => m.port === found.port);
    if (!monitor?.ready) return { kind: 'not-found' };
    if (!monitor.online) return { kind: 'unavailable' };
    return { kind: 'proxy', host: found.op.ip, port: found.port, job: runner.job };
  }

  /** Running jobs and their containers by state, for the metrics. */
  private snapshot(): NodeSnapshot {
    const containers: Record<string, number> = {};
    let jobs = 0;
    for (const runner of this.jobs.values()) {
      if (!runner.ended) jobs++;
      for (const op of runner.ops) if (op.containerId) containers[op.state] = (containers[op.state] ?? 0) + 1;
    }
    return { jobs, containers };
  }

  /**
   * The agent stops; jobs keep running in the engine for the next agent to adopt. A job whose end is
   * under way is ended first (bounded): left half-way, its stops would race the next agent, which
   * could adopt a container this one is stopping and take its exit for a failure.
   */
  async close(): Promise<void> {
    const ending = [...this.jobs.values()].filter((runner) => runner.ended).map((runner) => runner.whenEnded().catch(() => undefined));
    if (ending.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, ENDING_ON_CLOSE_MS)));
      await Promise.race([Promise.all(ending), bound]);
      clearTimeout(timer);
    }
    this.closed = true;
    this.disk.close();
    this.events.close();
    this.cleaner.close();
    this.opts.resources?.close();
    for (const runner of this.jobs.values()) runner.detach();
    this.jobs.clear();
    this.finished.clear();
  }

  private async control(job: string, action: (runner: JobRunner) => Promise<OpRunner[]>): Promise<OpStatus[]> {
    const runner = this.known(job);
    if (runner.ended) throw conflict(`job ${runner.job} has ended (${runner.state})`);
    const ops = await action(runner);
    return ops.map((op) => opStatus(runner, op, this.opts.domain));
  }

  private runner(assignment: JobAssignment, startedAt: number): JobRunner {
    const o = this.opts;
    const runner = new JobRunner(assignment, startedAt, {
      docker: o.docker,
      node: o.node,
      nodeAddress: o.nodeAddress,
      domain: o.domain,
      reporter: o.reporter,
      logger: o.logger,
      reportTimeoutMs: o.reportTimeoutMs,
      isolation: o.isolation,
      forwards: o.forwards,
      cleaner: this.cleaner,
      opContext: {
        docker: o.docker,
        node: o.node,
        limits: jobLimits(o.limits, assignment.job, assignment.definition, assignment.containerLimits),
        gpus: o.gpus,
        pullTimeoutMs: o.pullTimeoutMs,
        stopGraceSeconds: o.stopGraceSeconds,
        health: o.health,
        logLimits: o.logLimits,
        startPool: this.startPool,
        stopPool: this.stopPool,
        images: o.images,
        resources: o.resources,
        metrics: this.metrics,
      },
      onEnded: (r) => this.onEnded(r),
    });
    this.jobs.set(assignment.job.toLowerCase(), runner);
    return runner;
  }

  private onEnded(runner: JobRunner): void {
    this.opts.resources?.release(runner.job);
    const key = runner.job.toLowerCase();
    if (this.jobs.get(key) !== runner || this.closed) return;
    this.jobs.delete(key);
    this.metrics?.forgetJob(runner.job);
    this.finished.set(key, runner);
    setTimeout(() => this.finished.get(key) === runner && this.finished.delete(key), this.opts.retentionMs).unref();
  }

  private onEvent(e: ContainerEvent): void {
    this.jobs.get(e.job.toLowerCase())?.op(e.op)?.onEngineEvent(e.id);
  }

  /** Events were lost while the stream reconnected: re-read every op. */
  private resync(): void {
    for (const runner of this.jobs.values()) for (const op of runner.ops) if (op.containerId) op.onEngineEvent(op.containerId);
  }

  private live(job: string): JobRunner {
    const runner = this.jobs.get(job.toLowerCase());
    if (!runner) throw notFound(`job ${job} is not running on this node`);
    return runner;
  }

  private known(job: string): JobRunner {
    const runner = this.find(job);
    if (!runner) throw notFound(`job ${job} is not running on this node`);
    return runner;
  }
}
