import type { EndpointForwards } from '../docker/forwards';
import type { NetworkIsolation } from '../docker/isolation';
import type Docker from 'dockerode';
import type { Logger } from 'pino';
import { planStages, resolveOpLiterals, unresolvedLiterals, type NormalizedOp, type StagePlan } from '@ocg/job-definition';
import type { Reporter } from '../seam';
import { encodeBlob, names } from '../docker/labels';
import { ensureJobNetwork, writeNote } from '../docker/objects';
import type { Cleaner } from './cleaner';
import { OpRunner, type OpContext, type StopIntent } from './op-runner';
import { reasons } from './reasons';
import type { Note, RestoredJob } from './restore';
import { decide, reachedStage, type Action, type OpView } from './stage-logic';
import type { JobAssignment, JobState, JobSummary } from './types';
import { ChangeTracker, jobStatus, jobResults } from './job-view';

export interface JobRunnerDeps {
  docker: Docker;
  node: string;
  /** `%%global.node%%` */
  nodeAddress: string;
  domain: string;
  reporter: Reporter;
  logger: Logger;
  reportTimeoutMs: number;
  /** The op context minus what the runner fills in per job. */
  opContext: Omit<OpContext, 'job' | 'network' | 'onChange' | 'logger' | 'record' | 'jobSignal'>;
  cleaner: Cleaner;
  onEnded: (runner: JobRunner, summary: JobSummary) => void;
  isolation?: NetworkIsolation;
  forwards?: EndpointForwards;
}

/** setTimeout's limit; longer deadlines are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One job on this node: its network, its ops (OpRunners) and the stage
 * machine (`decide`), from start or adoption to cleanup.
 */
export class JobRunner {
  readonly job: string;
  readonly poster: string;
  readonly plan: StagePlan;
  readonly ops: OpRunner[];
  state: JobState = 'running';
  reason: string | null = null;
  endedAt: Date | null = null;
  reached = 0;
  deadline: number;
  private ending: Promise<JobSummary> | undefined;
  private readonly done: { promise: Promise<JobSummary>; resolve: (s: JobSummary) => void };
  private tickQueued = false;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private readonly logger: Logger;
  private readonly tracker: ChangeTracker;
  private detached = false;
  /** Aborted the moment the job ends: every start still waiting or pulling is cancelled. */
  private readonly cancel = new AbortController();
  /** The job network is this agent's (made or adopted): only then are its rules ours to remove. */
  private ownsNetwork = false;
  /** The set-up of a new job (its network): an end that comes meanwhile waits for it, so the network it makes is removed too. */
  private beginning: Promise<void> = Promise.resolve();

  constructor(
    readonly assignment: JobAssignment,
    readonly startedAt: number,
    private readonly deps: JobRunnerDeps,
  ) {
    this.job = assignment.job;
    this.poster = assignment.poster;
    this.deadline = assignment.deadline;
    this.plan = planStages(assignment.definition);
    this.logger = deps.logger.child({ job: this.job });
    this.tracker = new ChangeTracker(this, deps.reporter, deps.domain, deps.forwards);
    let resolve!: (s: JobSummary) => void;
    this.done = { promise: new Promise<JobSummary>((r) => (resolve = r)), resolve };
    const ctx: OpContext = {
      ...deps.opContext,
      job: this.job,
      network: names.network(this.job),
      logger: this.logger,
      onChange: (op) => this.changed(op),
      record: (op, intent) => this.recordStop(op, intent),
      jobSignal: this.cancel.signal,
    };
    this.ops = assignment.definition.ops.map((def, i) => new OpRunner(def, this.plan.ops[i], this.plan.stages[this.plan.ops[i].stage].name, ctx));
  }

  op(id: string): OpRunner | undefined {
    return this.ops.find((o) => o.id === id);
  }

  get ended(): boolean {
    return this.ending !== undefined;
  }

  /** A new job: its network (which carries what a restarted agent needs), then the first stage. */
  begin(): Promise<void> {
    this.beginning = this.setUp();
    return this.beginning;
  }

  private async setUp(): Promise<void> {
    const { docker, node } = this.deps;
    const definition = encodeBlob(this.assignment.definition);
    const network = await ensureJobNetwork(docker, node, this.job, {
      poster: this.poster,
      deadline: this.deadline,
      startedAt: this.startedAt,
      definition,
      containerLimits: this.assignment.containerLimits,
    });
    this.ownsNetwork = true;
    await this.deps.isolation?.isolate(docker, network, this.job);
    if (this.ended) return; // ended while its network was being made: nothing more to start
    this.deps.reporter.jobStarted(this.job, false);
    for (const op of this.ops) this.tracker.mark(op); // every op's first state, pending ones included
    this.refuseUnrunnable();
    this.armDeadline();
    this.scheduleTick();
  }

  /** Fail at once what this node can never run, instead of after earlier stages ran for nothing. */
  private refuseUnrunnable(): void {
    if (this.deps.opContext.gpus) return;
    for (const op of this.ops) if (op.def.type === 'container/run' && op.def.args.gpu) op.end('failed', reasons.noGpu());
  }

  /** A job found in the engine after an agent restart. */
  async adopt(restored: RestoredJob): Promise<void> {
    for (const op of this.ops) {
      const found = restored.containers.get(op.id);
      if (found) await op.adopt(found.info, found.attempt, found.intent, okOrUndefined(this.resolved(op)));
      const intent = restored.endedWithoutContainer.get(op.id);
      if (!found && intent) op.end(intent.state, intent.reason);
    }
    this.reached = reachedStage(this.plan, this.views());
    this.ownsNetwork = true;
    // A reboot or a firewall reload may have flushed the rules while the agent was away.
    await this.deps.isolation?.isolate(this.deps.docker, names.network(this.job), this.job);
    this.deps.reporter.jobStarted(this.job, true);
    for (const op of this.ops) this.tracker.mark(op);
    if (restored.ended) {
      void this.end(restored.ended.state, restored.ended.reason);
      return;
    }
    this.armDeadline();
    this.scheduleTick();
  }

  /** Ends the job: remaining ops stopped, the summary reported, every object removed. */
  end(state: JobState, reason: string): Promise<JobSummary> {
    this.ending ??= this.finish(state, reason);
    return this.ending;
  }

  /** Resolves once the job ended and everything it made is removed. */
  whenEnded(): Promise<JobSummary> {
    return this.done.promise;
  }

  async extend(deadline: number): Promise<void> {
    await this.note({ kind: 'deadline', deadline, at: Date.now() });
    this.deadline = deadline;
    this.armDeadline();
  }

  /** The agent goes away and leaves the job running (a restarted agent adopts it). */
  detach(): void {
    this.detached = true;
    clearTimeout(this.deadlineTimer);
    for (const op of this.ops) op.dispose();
    this.cancel.abort(); // starts still queued are left to the next agent, which finds those ops without a container
  }

  async note(note: Note): Promise<void> {
    await writeNote(this.deps.docker, this.deps.node, this.job, note).catch((err: unknown) => this.logger.warn({ err }, 'could not write a note'));
  }

  scheduleTick(): void {
    if (this.tickQueued || this.ended || this.detached) return;
    this.tickQueued = true;
    setImmediate(() => {
      this.tickQueued = false;
      if (!this.ended && !this.detached) this.apply(decide(this.plan, this.views(), this.reached));
    });
  }

  private apply(actions: Action[]): void {
    for (const action of actions) {
      if (action.kind === 'advance') {
        this.reached = action.stage;
        this.logger.info({ stage: this.plan.stages[action.stage].name }, 'stage reached');
      } else if (action.kind === 'end') {
        void this.end(action.state, action.reason);
      } else {
        this.applyToOp(this.opOf(action.op), action);
      }
    }
  }

  private applyToOp(op: OpRunner, action: Extract<Action, { op: string }>): void {
    if (action.kind === 'start') this.startOp(op);
    else if (action.kind === 'fail') op.end('failed', action.reason);
    else void this.stopOp(op, { state: 'stopped', reason: action.reason });
  }

  /** The plan and the runners come from the same definition, so every planned id has a runner. */
  private opOf(id: string): OpRunner {
    const op = this.op(id);
    if (!op) throw new Error(`no op ${id} in job ${this.job}`);
    return op;
  }

  stopOp(op: OpRunner, intent: StopIntent): Promise<void> {
    return op.stop(intent);
  }

  private startOp(op: OpRunner): void {
    const resolved = this.resolved(op);
    if (resolved instanceof Error) {
      op.end('failed', `its literals could not be resolved: ${resolved.message}`);
      return;
    }
    const left = unresolvedLiterals(resolved.args);
    if (left.length > 0) op.end('failed', reasons.unresolved(left));
    else void op.start(resolved);
  }

  /** The op with its literals resolved from what is known now, or why they cannot be. */
  private resolved(op: OpRunner): NormalizedOp | Error {
    try {
      const results = Object.fromEntries(this.ops.map((o) => [o.id, o.results.forLiterals()]));
      const context = { job: this.job, host: `${this.job}.${this.deps.domain}`, node: this.deps.nodeAddress, results };
      return resolveOpLiterals(this.assignment.definition, op.plan.opIndex, context);
    } catch (err) {
      return err as Error;
    }
  }

  /** Stops the agent decided are kept in the engine; a job ending is recorded once, as a whole. */
  private async recordStop(op: OpRunner, intent: StopIntent): Promise<void> {
    if (!this.ended) await this.note({ kind: 'op-stopped', op: op.id, attempt: op.attempt, intent, at: Date.now() });
  }

  private async finish(state: JobState, reason: string): Promise<JobSummary> {
    this.state = state;
    this.reason = reason;
    clearTimeout(this.deadlineTimer);
    this.logger.info({ state, reason }, 'job ending');
    const why = reasons.jobEnded(reason);
    for (const op of this.ops) op.markEnding({ state: 'stopped', reason: why });
    this.cancel.abort();
    // The gateway stops reaching the containers directly before they stop (the ingress answers for an ending job).
    await this.deps.forwards?.release(this.job);
    await this.beginning.catch(() => undefined);
    await this.note({ kind: 'job-ended', state, reason, at: Date.now() });
    for (const op of this.ops) await op.leaveNetwork(); // one at a time (see OpRunner.leaveNetwork)
    await Promise.all(this.ops.map((op) => (op.terminal ? undefined : op.stop({ state: 'stopped', reason: why }))));
    await Promise.all(this.ops.map((op) => op.settled()));
    this.endedAt = new Date();
    this.tracker.flush(); // op changes go out before the summary
    const summary: JobSummary = { ...jobStatus(this, this.deps.domain), results: jobResults(this) };
    await this.report(summary);
    for (const op of this.ops) op.dispose();
    if (this.ownsNetwork)
      await this.deps.isolation
        ?.release(this.deps.docker, names.network(this.job), this.job)
        .catch((err: unknown) => this.logger.error({ err }, 'removing the network rules failed'));
    await this.deps.cleaner.clean(this.job);
    this.logger.info({ state }, 'job ended and cleaned up');
    this.deps.onEnded(this, summary);
    this.done.resolve(summary);
    return summary;
  }

  private async report(summary: JobSummary): Promise<void> {
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, this.deps.reportTimeoutMs).unref());
    try {
      await Promise.race([this.deps.reporter.jobEnded(summary), timeout]);
    } catch (err) {
      this.logger.error({ err }, 'the end-of-job report failed');
    }
  }

  private armDeadline(): void {
    clearTimeout(this.deadlineTimer);
    const left = this.deadline - Date.now();
    if (left <= 0) {
      void this.end('completed', "the job's duration is over");
      return;
    }
    this.deadlineTimer = setTimeout(() => this.armDeadline(), Math.min(left, MAX_TIMER_MS));
    this.deadlineTimer.unref();
  }

  private changed(op: OpRunner): void {
    if (this.detached) return;
    this.tracker.mark(op);
    this.scheduleTick();
  }

  private views(): Map<string, OpView> {
    return new Map(this.ops.map((o) => [o.id, { state: o.state, busy: o.busy, released: o.released, reason: o.reason }]));
  }
}

const okOrUndefined = <T>(value: T | Error): T | undefined => (value instanceof Error ? undefined : value);
