/**
 * Restarts a process of the local stack that dies: after a delay that grows
 * with each restart in a row (up to a cap), forgotten once the process has
 * stayed up a while; after too many restarts in a row it gives up and lets
 * the owner decide (the stack stops).
 */
import type { ManagedProcess } from './process';

export interface RestartPolicy {
  /** Delay before the first restart; it doubles with each restart in a row. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** A process up this long counts as healthy: the next exit starts from the first delay again. */
  stableAfterMs: number;
  /** Restarts in a row before giving up. */
  maxRestarts: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { firstDelayMs: 1000, maxDelayMs: 30_000, stableAfterMs: 60_000, maxRestarts: 5 };

/** The delay before restart `n` in a row (1-based). */
export function restartDelay(policy: RestartPolicy, n: number): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (n - 1));
}

/** `code 1` or `signal SIGKILL`: how a child ended. */
export function exitDescription(proc: ManagedProcess, code: number | null): string {
  return code === null && proc.child.signalCode ? `signal ${proc.child.signalCode}` : `code ${code}`;
}

export interface SuperviseOptions {
  name: string;
  policy: RestartPolicy;
  /** Starts the process again; the supervisor watches what it returns. */
  start(): ManagedProcess;
  /** Called with each new process as soon as it is started. */
  onStart?(proc: ManagedProcess): void;
  /** Waits until a restarted process serves (it prints its own line); a rejection is reported. */
  ready?(proc: ManagedProcess): Promise<void>;
  onStep(text: string): void;
  /** Too many restarts in a row: nothing more is started. */
  onGiveUp(reason: string): void;
}

export interface Supervisor {
  /** The process running now (or the last one). */
  current(): ManagedProcess;
  /** No more restarts: call before stopping the process on purpose. */
  stop(): void;
}

/** Watches `first` (already started and ready) and restarts it, or its successors, when they exit. */
export function supervise(first: ManagedProcess, opts: SuperviseOptions): Supervisor {
  const { name, policy } = opts;
  let proc = first;
  let inARow = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const watch = (watched: ManagedProcess, startedAt: number): void => {
    void watched.exited.then((code) => {
      if (stopped) return;
      const how = exitDescription(watched, code);
      if (Date.now() - startedAt >= policy.stableAfterMs) inARow = 0;
      if (inARow >= policy.maxRestarts) {
        opts.onGiveUp(`${name} exited (${how}) after ${inARow} restarts in a row`);
        return;
      }
      inARow += 1;
      const delay = restartDelay(policy, inARow);
      opts.onStep(`${name} exited unexpectedly (${how}); restarting it in ${delay / 1000} s (restart ${inARow} of at most ${policy.maxRestarts} in a row)`);
      timer = setTimeout(() => {
        timer = undefined;
        if (stopped) return;
        proc = opts.start();
        opts.onStart?.(proc);
        watch(proc, Date.now());
        const started = proc;
        opts.ready?.(started).catch((err: unknown) => {
          // An exit before it was ready is reported by the watch above.
          const exited = started.child.exitCode !== null || started.child.signalCode !== null;
          if (!stopped && !exited) opts.onStep(`${name} did not come back: ${(err as Error).message}`);
        });
      }, delay);
    });
  };
  watch(first, Date.now());

  return {
    current: () => proc,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
