import type Docker from 'dockerode';
import type { ContainerInspectInfo } from 'dockerode';
import type { Logger } from 'pino';
import type { NormalizedOp, NormalizedRunOp, PlannedOp } from '@ocg/job-definition';
import { engineMessage, statusOf } from '../docker/client';
import { ensureImage, type ImagePolicy } from '../docker/images';
import { ensureVolume } from '../docker/objects';
import { LABEL } from '../docker/labels';
import { PortMonitor, type HealthTiming } from '../health/port-monitor';
import type { LogBuffer } from './log-buffer';
import { OpOutput } from './op-output';
import { createOpContainer, knownPorts, readPortsLabel, resolvedPorts, type OpPort } from './op-container';
import { exitReason, reasons } from './reasons';
import type { ResultExtractor } from './results';
import type { OpState } from './types';
import type { Limits } from '../docker/container-spec';
import type { Pool } from './pool';
import type { NodeResourceProgress } from '@ocg/contracts';
import type { Mount, Prepared, ResourceStage } from '../resources/stage';
import type { NodeMetrics } from '../node-metrics';

export interface OpContext {
  docker: Docker;
  node: string;
  job: string;
  network: string;
  limits: Limits;
  gpus: boolean;
  pullTimeoutMs: number;
  stopGraceSeconds: number;
  health: HealthTiming;
  logLimits: { lines: number; bytes: number };
  logger: Logger;
  /** Something about this op changed: its state, release or an endpoint. */
  onChange: (op: OpRunner) => void;
  /** Keeps a stop the agent decided in the engine, for a restarted agent. */
  record: (op: OpRunner, intent: StopIntent) => Promise<void>;
  /** Container creates and starts of every job go through this (a node setting). */
  startPool: Pool;
  /** Container stops of every job go through this. */
  stopPool: Pool;
  /** Aborts when the job ends: queued starts leave the pool, pulls are cancelled, no engine call follows. */
  jobSignal: AbortSignal;
  /** Whether a cached image may be used without asking its registry (private images must be asked each time). */
  images: ImagePolicy;
  /** Fetches remote resources; absent: ops with resources fail. */
  resources?: ResourceStage;
  /** Pulls and health checks are counted here when the agent serves metrics. */
  metrics?: NodeMetrics;
}

/** A decision to end the op that the container's exit must not override. */
export interface StopIntent {
  state: 'stopped' | 'failed';
  reason: string;
}

/**
 * One op's container over its life: pull, create, start, follow logs, health
 * checks, timeout, exit, stop. Engine events and inspect drive it; it never
 * decides when to start (the JobRunner does).
 */
export class OpRunner {
  readonly output: OpOutput;
  state: OpState = 'pending';
  reason: string | null = null;
  exitCode: number | null = null;
  restarts = 0;
  startedAt: Date | null = null;
  endedAt: Date | null = null;
  /** Dependents may start: started (no ports), or every port passed its startup checks once. */
  released = false;
  /** A start is in progress (pulling, creating). */
  busy = false;
  attempt = 0;
  containerId: string | undefined;
  ip: string | undefined;
  ports: OpPort[];
  monitors: PortMonitor[] = [];
  /** `fetching resources` while the op's resources download. */
  activity: 'fetching resources' | null = null;
  /** Its remote resources' fetch progress, once it began. */
  resources: NodeResourceProgress[] | undefined;
  private mounts: Mount[] = [];
  private afterRun: Prepared['finish'] | undefined;
  private uploading: Promise<void> | undefined;
  private intent: StopIntent | undefined;
  /** The start in progress, and how to cancel its pull. */
  private starting: Promise<void> | undefined;
  private abort = new AbortController();
  private signal: AbortSignal = this.abort.signal;
  private timer: NodeJS.Timeout | undefined;
  /** Set while the op is being reset for a restart: engine events for the old container are ignored. */
  private suspended = false;
  private disposed = false;

  constructor(
    readonly def: NormalizedOp,
    readonly plan: PlannedOp,
    readonly group: string,
    private readonly ctx: OpContext,
  ) {
    this.output = new OpOutput(def.results, ctx.logLimits);
    this.ports = knownPorts(def);
  }

  get logs(): LogBuffer {
    return this.output.logs;
  }

  get results(): ResultExtractor {
    return this.output.results;
  }

  get id(): string {
    return this.def.id;
  }

  get terminal(): boolean {
    return this.state === 'completed' || this.state === 'failed' || this.state === 'stopped';
  }

  get hasPorts(): boolean {
    return this.ports.length > 0;
  }

  /** Runs the op, given with its literals resolved. Failures end as a failed op, never a throw. */
  start(resolved: NormalizedOp): Promise<void> {
    this.busy = true;
    this.abort = new AbortController();
    this.signal = AbortSignal.any([this.abort.signal, this.ctx.jobSignal]);
    this.starting = this.run(resolved);
    return this.starting;
  }

  private async run(resolved: NormalizedOp): Promise<void> {
    try {
      if (resolved.type === 'container/create-volume') {
        await ensureVolume(this.ctx.docker, this.ctx.node, this.ctx.job, resolved.args.name);
        this.startedAt = new Date();
        this.released = true;
        this.finish('completed', null);
        return;
      }
      await this.prepare(resolved);
      if (this.intent) return this.finish(this.intent.state, this.intent.reason);
      await this.ctx.startPool.run(() => this.launch(resolved), this.signal);
    } catch (err) {
      if (this.intent) this.finish(this.intent.state, this.intent.reason);
      else this.finish('failed', err instanceof OpFailure ? err.message : reasons.startFailed(engineMessage(err)));
    } finally {
      this.busy = false;
      this.changed();
    }
  }

  /** The job is ending: set before the job's signal aborts, so a cancelled start ends as this, not as a failure. */
  markEnding(intent: StopIntent): void {
    if (!this.terminal) this.intent ??= intent;
  }

  /**
   * Takes the running container off the job network (the job is ending): it
   * can no longer talk to anything, and its exit no longer touches the
   * network. Done one container at a time by the caller: Docker 20.10 can
   * leak a network's endpoint count when many containers of one network exit
   * at once, and such a network cannot be removed until dockerd restarts.
   */
  async leaveNetwork(): Promise<void> {
    await this.starting?.catch(() => undefined);
    if (!this.containerId || this.terminal) return;
    await this.ctx.docker
      .getNetwork(this.ctx.network)
      .disconnect({ Container: this.containerId, Force: true })
      .catch(() => undefined);
  }

  /** Ends the op: SIGTERM, a grace period, SIGKILL. The intent decides the final state. */
  async stop(intent: StopIntent): Promise<void> {
    if (this.terminal) return;
    if (!this.intent) {
      this.intent = intent;
      await this.ctx.record(this, intent);
    }
    if (this.busy) {
      // Cancel a pull in progress and let the start see the intent.
      this.abort.abort();
      await this.starting;
    }
    if (!this.containerId) {
      this.finish(this.intent.state, this.intent.reason);
      return;
    }
    if (this.terminal) return;
    try {
      const container = this.container();
      await this.ctx.stopPool.run(() => container.stop({ t: this.ctx.stopGraceSeconds }));
    } catch (err) {
      if (statusOf(err) !== 304 && statusOf(err) !== 404) this.ctx.logger.warn({ err, op: this.id }, 'stop failed');
    }
    await this.refresh();
  }

  /** Ends an op that never started (a dependency failed, the node cannot run it). */
  end(state: 'failed' | 'stopped', reason: string): void {
    if (this.containerId || this.busy) {
      void this.stop({ state, reason });
      return;
    }
    this.intent ??= { state, reason };
    this.finish(state, reason);
  }

  /** Back to pending for a restart through the node API; the old container is removed. */
  async reset(): Promise<void> {
    this.suspended = true;
    const old = this.containerId;
    this.quiesce();
    if (old) {
      const container = this.ctx.docker.getContainer(old);
      await container.stop({ t: this.ctx.stopGraceSeconds }).catch(() => undefined);
      await container.remove({ force: true }).catch(() => undefined);
    }
    Object.assign(this, { state: 'pending', reason: null, exitCode: null, restarts: 0, startedAt: null, endedAt: null });
    Object.assign(this, { released: false, intent: undefined, containerId: undefined, ip: undefined, suspended: false });
    this.output.reopen('restarted through the node API');
    this.changed();
  }

  /** Rebuilds the op from its container after an agent restart; `resolved`: the op with its literals, when they resolve. */
  async adopt(info: ContainerInspectInfo, attempt: number, intent: StopIntent | undefined, resolved?: NormalizedOp): Promise<void> {
    this.attempt = attempt;
    this.containerId = info.Id;
    this.intent = intent;
    this.ports = readPortsLabel(info.Config.Labels) ?? this.ports;
    this.startedAt = new Date(info.Created);
    this.released = !this.hasPorts;
    if (info.State.Status === 'created') {
      // Created but never started: the agent died in between. Start over.
      await this.container()
        .remove({ force: true })
        .catch(() => undefined);
      Object.assign(this, { containerId: undefined, startedAt: null, released: false });
      return;
    }
    this.state = 'running';
    // The engine's log holds only this container's lines: numbered from where they began, not from 1.
    this.logs.continueAt(Number(info.Config.Labels?.[LABEL.logSeq] ?? 1));
    await this.adoptCopies(info, resolved);
    if (!info.State.Running) this.released = true;
    this.monitors = this.makeMonitors();
    this.armTimeout(info.Created);
    await this.refresh(info);
  }

  /** Writable resource copies the container mounts are written back at the op's end, as the old agent would have. */
  private async adoptCopies(info: ContainerInspectInfo, resolved: NormalizedOp | undefined): Promise<void> {
    if (this.def.type !== 'container/run' || !this.def.args.resources.some((r) => typeof r === 'object' && !('__spread__' in r) && 'allowWrite' in r && r.allowWrite)) return;
    try {
      if (resolved?.type !== 'container/run') throw new Error("the op's literals did not resolve");
      this.afterRun = await this.ctx.resources?.adoptCopies(resolved.args.resources, info.Mounts ?? [], this.ctx.jobSignal);
    } catch (err) {
      this.ctx.logger.warn({ err: (err as Error).message, op: this.id }, "after the restart the op's writable resources cannot be written back at its end");
    }
  }

  /** Resolves once an ended op's last log lines are in (so results are complete). */
  async settled(): Promise<void> {
    if (this.terminal) await this.output.drained();
    await this.uploading;
  }

  /** Container events: re-read the truth from the engine. */
  onEngineEvent(id: string): void {
    if (id === this.containerId) void this.refresh();
  }

  /** The agent is going away, the job keeps running: stop watching, touch nothing. */
  dispose(): void {
    this.disposed = true;
    this.quiesce();
  }

  private async prepare(op: NormalizedRunOp): Promise<void> {
    if (op.args.gpu && !this.ctx.gpus) throw new OpFailure(reasons.noGpu());
    if (op.args.resources.length > 0) await this.fetchResources(op);
    const auth = op.args.authentication?.docker;
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const how = await ensureImage(this.ctx.docker, op.args.image, auth, { timeoutMs: this.ctx.pullTimeoutMs, signal: this.signal, policy: this.ctx.images });
      this.ctx.metrics?.pulled(how, seconds());
      if (how === 'pulled') this.logs.push('nodeerr', `pulled image ${op.args.image}`);
    } catch (err) {
      this.ctx.metrics?.pulled('failed', seconds());
      throw new OpFailure((err as Error).message);
    }
    // Mounted volumes exist with our labels even if no create-volume op made them, so cleanup finds them.
    for (const v of op.args.volumes) if (!this.intent && !this.signal.aborted) await ensureVolume(this.ctx.docker, this.ctx.node, this.ctx.job, v.name);
    this.ports = resolvedPorts(op);
  }

  /** Before the container exists: the op's resources in the cache, as mounts. */
  private async fetchResources(op: NormalizedRunOp): Promise<void> {
    const stage = this.ctx.resources;
    if (!stage) throw new OpFailure(reasons.resources());
    this.activity = 'fetching resources';
    this.changed();
    try {
      const onProgress = (progress: NodeResourceProgress[]): void => {
        this.resources = progress;
        this.changed();
      };
      const prepared = await stage.prepare(this.ctx.job, op.id, op.args.resources, this.signal, onProgress, this.ctx.limits.resources);
      this.mounts = prepared.mounts;
      this.afterRun = prepared.finish;
    } catch (err) {
      if (this.signal.aborted) throw err;
      throw new OpFailure(reasons.resourceFailed((err as Error).message));
    } finally {
      this.activity = null;
    }
  }

  private async launch(op: NormalizedRunOp): Promise<void> {
    this.attempt++;
    const { docker, node, job, network, limits } = this.ctx;
    const logSeq = this.logs.lastSeq + 1;
    const container = await createOpContainer(docker, { node, job, op, group: this.group, attempt: this.attempt, logSeq, network, limits, mounts: this.mounts }, this.ports);
    this.containerId = container.id;
    // Stopped while creating (e.g. the job ended): the container must not outlive the job's cleanup.
    if (this.intent || this.signal.aborted) {
      await container.remove({ force: true }).catch(() => undefined);
      const intent = this.intent ?? { state: 'stopped', reason: reasons.jobEnded('cancelled') };
      return this.finish(intent.state, intent.reason);
    }
    try {
      await container.start();
    } catch (err) {
      throw new OpFailure(reasons.startFailed(engineMessage(err)));
    }
    this.startedAt = new Date();
    this.state = 'running';
    this.released = !this.hasPorts;
    this.monitors = this.makeMonitors();
    this.armTimeout(this.startedAt.toISOString());
    await this.refresh();
  }

  /** Applies the container's state as the engine reports it. */
  private async refresh(known?: ContainerInspectInfo): Promise<void> {
    if (this.suspended || this.disposed || this.terminal || !this.containerId) return;
    let info = known;
    try {
      info ??= await this.container().inspect();
    } catch (err) {
      if (statusOf(err) === 404) this.finish(this.intent?.state ?? 'failed', this.intent?.reason ?? reasons.removedOutside());
      return;
    }
    if (this.terminal || this.suspended) return;
    this.restarts = info.RestartCount ?? 0;
    if (info.State.Running && !info.State.Restarting) this.onRunning(info);
    else if (info.State.Restarting || info.State.Running) this.onRestarting();
    else await this.onExited(info);
  }

  private onRunning(info: ContainerInspectInfo): void {
    const ip = info.NetworkSettings.Networks[this.ctx.network]?.IPAddress || undefined;
    const moved = ip !== this.ip;
    this.ip = ip;
    this.ensurePump();
    for (const m of this.monitors) if (moved || !m.started) m.start();
    this.changed();
  }

  private onRestarting(): void {
    for (const m of this.monitors) m.reset();
    this.ip = undefined;
    this.changed();
  }

  private async onExited(info: ContainerInspectInfo): Promise<void> {
    this.ensurePump();
    await this.output.drained();
    if (this.terminal) return;
    this.exitCode = info.State.ExitCode;
    if (this.intent) return this.finish(this.intent.state, this.intent.reason);
    const beforeReady = this.hasPorts && !this.released;
    const lastOutput = this.logs.lastOf('stderr', 3).length > 0 ? this.logs.lastOf('stderr', 3) : this.logs.lastOf('stdout', 3);
    const reason = exitReason({
      code: info.State.ExitCode,
      restarts: this.restarts,
      oomKilled: info.State.OOMKilled,
      memoryLimitBytes: this.ctx.limits.memoryBytes,
      engineError: info.State.Error ?? '',
      lastOutput,
      beforeReady,
    });
    this.finish(reason === null ? 'completed' : 'failed', reason);
  }

  private finish(state: 'completed' | 'failed' | 'stopped', reason: string | null): void {
    if (this.terminal) return;
    this.state = state;
    this.reason = reason;
    this.endedAt = new Date();
    clearTimeout(this.timer);
    for (const m of this.monitors) m.stop();
    if (reason) this.logs.push('nodeerr', `${state}: ${reason}`);
    const after = this.afterRun;
    this.afterRun = undefined;
    if (after) this.uploading = after().catch((err: unknown) => this.ctx.logger.warn({ err, op: this.id }, "writing back the op's writable resources failed"));
    this.output.closeWhenDrained();
    this.changed();
  }

  private ensurePump(): void {
    if (!this.containerId || this.disposed) return;
    // After the engine ends a follow (the container stopped), re-read the state: a restarted one is followed again.
    this.output.follow(this.container(), () => {
      if (!this.terminal && !this.disposed) setTimeout(() => void this.refresh(), 50).unref();
    });
  }

  private makeMonitors(): PortMonitor[] {
    return this.ports.map(
      (p) =>
        new PortMonitor(
          p.port,
          p.checks,
          () => (this.ip ? { host: this.ip, port: p.port } : undefined),
          this.ctx.health,
          () => {
            if (!this.released && this.monitors.every((m) => m.ready)) this.released = true;
            this.changed();
          },
          this.ctx.metrics && ((check, ok) => this.ctx.metrics?.checked(check, ok)),
        ),
    );
  }

  /** A task that overruns failed (it did not finish its work); a service that does was stopped. */
  private armTimeout(since: string): void {
    const seconds = this.plan.timeoutSeconds;
    if (seconds === null) return;
    const left = Math.max(0, Date.parse(since) + seconds * 1000 - Date.now());
    this.timer = setTimeout(() => void this.stop({ state: this.hasPorts ? 'stopped' : 'failed', reason: reasons.timeout(seconds) }), left);
    this.timer.unref();
  }

  private quiesce(): void {
    clearTimeout(this.timer);
    for (const m of this.monitors) m.stop();
    this.monitors = [];
    this.output.detach();
  }

  /** Only called once a container exists. */
  private container(): Docker.Container {
    if (!this.containerId) throw new Error(`op ${this.id} has no container`);
    return this.ctx.docker.getContainer(this.containerId);
  }

  private changed(): void {
    if (!this.disposed) this.ctx.onChange(this);
  }
}

/** A failure whose message is already meant for the poster. */
class OpFailure extends Error {}
