import type { Logger } from 'pino';
import type { FinishJobRequest, NodeEndpointReport, NodeOpReport } from '@ocg/contracts';
import type { EndpointReport, JobSummary, OpStatus } from '../executor/types';
import type { Reporter } from '../seam';
import { Backoff, ControlPlaneError, sleep, type ControlPlaneClient } from './client';
import { boundFinish, boundOp } from './bounds';
import { LogTails, type LogSource } from './log-tails';

export interface ReporterSettings {
  /** Changes are gathered this long and sent as one report per job. */
  batchMs?: number;
  /** jobEnded waits this long for the finish call; then it goes on retrying in the background. */
  finishWaitMs: number;
  /** How long a finish is retried in the background before it is given up (the control plane then fails the job as lost). */
  finishGiveUpMs?: number;
  /** Ops whose output grew are reported with their last lines at most this often (default 5 s). */
  logTailMs?: number;
}

interface Pending {
  ops: Map<string, NodeOpReport>;
  endpoints: Map<string, NodeEndpointReport>;
}

/**
 * Tells deployment-manager what happens: op and endpoint changes batched
 * per job (latest state wins) and retried; every few seconds the last lines
 * of each op whose output grew (for the job page); the end of a job as one
 * finish call with the final states, tails and results. Calls for one job go
 * out one after another, so a late report never overwrites the finish.
 */
export class ControlPlaneReporter implements Reporter {
  private readonly pending = new Map<string, Pending>();
  private readonly chains = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  /** job → op → its latest state: a tail is sent with the op's state, which a report needs whole. */
  private readonly known = new Map<string, Map<string, NodeOpReport>>();
  private readonly tails = new LogTails();
  private tailTimer: NodeJS.Timeout | undefined;
  private readonly backoff = new Backoff(10_000);
  private closed = false;
  /** Every call waits for this: a restarted agent adopts (and reports) its jobs before it has registered again. */
  private gate: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: ControlPlaneClient,
    private readonly settings: ReporterSettings,
    private readonly logger: Logger,
  ) {}

  jobStarted(): void {
    // nothing to send: the claim told the control plane and the first op state follows; the log line is the LogReporter's
  }

  opChanged(job: string, op: OpStatus): void {
    const report = toOpReport(op);
    const pendingTail = this.entry(job).ops.get(op.id)?.logTail; // taken once: it must ride along with the newer state
    this.entry(job).ops.set(op.id, pendingTail ? { ...report, logTail: pendingTail } : report);
    let ops = this.known.get(job);
    if (!ops) this.known.set(job, (ops = new Map()));
    ops.set(op.id, report);
    this.schedule(this.settings.batchMs ?? 200);
  }

  /** Where op output is read (the executor's buffers); until this is called no tails are sent. */
  readLogs(source: LogSource): void {
    this.tails.read(source);
    if (this.tailTimer || this.closed) return;
    this.tailTimer = setInterval(() => this.collectTails(), this.settings.logTailMs ?? 5000);
    this.tailTimer.unref();
  }

  endpointChanged(job: string, op: string, e: EndpointReport): void {
    this.entry(job).endpoints.set(`${op}:${e.port}`, { op, port: e.port, host: e.host, ready: e.ready, online: e.status === 'ONLINE', forward: e.forward ?? null, hosts: e.hosts });
    this.schedule(this.settings.batchMs ?? 200);
  }

  async jobEnded(summary: JobSummary): Promise<void> {
    // The finish carries the final state of every op, and the tails a report not yet sent had taken (taken once: dropped with the report, they would be lost).
    const unsent = this.pending.get(summary.job)?.ops;
    this.pending.delete(summary.job);
    const body: FinishJobRequest = boundFinish({
      status: summary.state === 'running' ? 'stopped' : summary.state,
      reason: summary.reason,
      results: summary.results,
      ops: summary.ops.map((op) => this.withTail(summary.job, toOpReport(op), unsent?.get(op.id)?.logTail)),
    });
    this.known.delete(summary.job);
    this.tails.forget(summary.job);
    const sent = this.enqueue(summary.job, () => this.finish(summary.job, body));
    const waited = new AbortController(); // a finish that came back early must not leave the wait's timer behind
    await Promise.race([sent, sleep(this.settings.finishWaitMs, waited.signal)]);
    waited.abort();
  }

  /** Holds every report and finish until `ready` resolves (the node's registration). */
  holdUntil(ready: Promise<void>): void {
    this.gate = ready;
  }

  /** Stops sending; what is still pending is sent again by the next agent (it reports adopted jobs afresh). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.tailTimer);
  }

  /** Puts the last lines of every op whose output grew into the next report. */
  private collectTails(): void {
    let grew = false;
    for (const [job, ops] of this.known) {
      for (const [id, op] of ops) {
        const logTail = this.tails.grown(job, id);
        if (!logTail) continue;
        const p = this.entry(job);
        p.ops.set(id, { ...(p.ops.get(id) ?? op), logTail });
        grew = true;
      }
    }
    if (grew) this.schedule(this.settings.batchMs ?? 200);
  }

  private withTail(job: string, op: NodeOpReport, unsent?: NodeOpReport['logTail']): NodeOpReport {
    const logTail = this.tails.grown(job, op.id) ?? unsent;
    return logTail ? { ...op, logTail } : op;
  }

  private entry(job: string): Pending {
    let p = this.pending.get(job);
    if (!p) this.pending.set(job, (p = { ops: new Map(), endpoints: new Map() }));
    return p;
  }

  private schedule(ms: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, ms);
    this.timer.unref();
  }

  private flush(): void {
    for (const [job, p] of this.pending) {
      this.pending.delete(job);
      void this.enqueue(job, () => this.report(job, p));
    }
  }

  private async report(job: string, p: Pending): Promise<void> {
    try {
      await this.client.post(`/node-jobs/${job}/report`, { ops: [...p.ops.values()], endpoints: [...p.endpoints.values()] });
      this.backoff.reset();
    } catch (err) {
      if (err instanceof ControlPlaneError && err.status === 404) return; // not this node's job (any more): nothing to tell
      this.logger.warn({ job, err: (err as Error).message }, 'report failed; retried');
      this.requeue(job, p);
      this.schedule(this.backoff.next());
    }
  }

  /** Puts a failed report back under anything newer that arrived meanwhile. */
  private requeue(job: string, p: Pending): void {
    const newer = this.pending.get(job);
    // A newer state of an op wins, but keeps the failed report's tail unless it has its own (tails are sent once).
    if (newer) for (const [k, v] of p.ops) newer.ops.set(k, { logTail: v.logTail, ...(newer.ops.get(k) ?? v) });
    if (newer) for (const [k, v] of p.endpoints) if (!newer.endpoints.has(k)) newer.endpoints.set(k, v);
    if (!newer) this.pending.set(job, p);
  }

  private async finish(job: string, body: FinishJobRequest): Promise<void> {
    const backoff = new Backoff(30_000);
    const giveUp = Date.now() + (this.settings.finishGiveUpMs ?? 3_600_000);
    while (Date.now() < giveUp) {
      try {
        await this.client.post(`/node-jobs/${job}/finish`, body);
        return;
      } catch (err) {
        if (err instanceof ControlPlaneError && err.status >= 400 && err.status < 500 && err.status !== 429) {
          this.logger.error({ job, err: err.message }, 'the control plane refused the end of a job');
          return;
        }
        this.logger.warn({ job, err: (err as Error).message }, 'finish failed; retried');
        await sleep(backoff.next());
      }
    }
    this.logger.error({ job }, 'gave up reporting the end of a job');
  }

  /** One call at a time per job, in order. */
  private enqueue(job: string, call: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(job) ?? this.gate).then(call, call);
    this.chains.set(job, next);
    void next.finally(() => this.chains.get(job) === next && this.chains.delete(job));
    return next;
  }
}

function toOpReport(op: OpStatus): NodeOpReport {
  return boundOp({
    id: op.id,
    group: op.group,
    opIndex: op.opIndex,
    status: op.state,
    exitCode: op.exitCode,
    reason: op.reason,
    restarts: op.restarts,
    startedAt: op.startedAt,
    endedAt: op.endedAt,
    ...(op.resources ? { activity: op.activity ?? null, resources: op.resources } : {}),
  });
}
