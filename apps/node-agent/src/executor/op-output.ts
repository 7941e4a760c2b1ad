import type Docker from 'dockerode';
import type { NormalizedResult } from '@ocg/job-definition';
import { LogBuffer } from './log-buffer';
import { LogPump } from './log-pump';
import { ResultExtractor } from './results';

/** How long an exit waits for the last log lines before its reason is written. */
const DRAIN_MS = 1000;

/**
 * An op's output: the engine's log stream, followed into the bounded buffer
 * and through the result regexes, across container restarts.
 */
export class OpOutput {
  readonly logs: LogBuffer;
  readonly results: ResultExtractor;
  private pump: LogPump | undefined;
  private following: Promise<void> | undefined;
  /** Bumped by a restart, so a close meant for the previous run does not close the new one. */
  private run = 0;

  constructor(results: Record<string, NormalizedResult>, limits: { lines: number; bytes: number }) {
    this.logs = new LogBuffer(limits.lines, limits.bytes);
    this.results = new ResultExtractor(results);
  }

  get isFollowing(): boolean {
    return this.following !== undefined;
  }

  /**
   * Follows `container` unless already following. The engine ends a follow
   * when the container stops; `onEnd` then decides whether to follow again.
   */
  follow(container: Docker.Container, onEnd: () => void): void {
    if (this.following) return;
    this.pump ??= new LogPump(container, (stream, time, text) => {
      this.results.feed(stream, text);
      this.logs.push(stream, text, time);
    });
    const following: Promise<void> = this.pump
      .follow()
      .catch(() => undefined)
      .finally(() => {
        if (this.following !== following) return;
        this.following = undefined;
        onEnd();
      });
    this.following = following;
  }

  /** Waits (a little) for lines still on their way. */
  async drained(): Promise<void> {
    if (!this.following) return;
    await Promise.race([this.following, new Promise((r) => setTimeout(r, DRAIN_MS).unref())]);
  }

  /** Closes the log once the last lines are in: followers see the end. */
  closeWhenDrained(): void {
    const run = this.run;
    void this.drained().then(() => run === this.run && this.logs.close());
  }

  /** A new run of the op (a restart through the API): the log continues. */
  reopen(note: string): void {
    this.run++;
    this.logs.reopen();
    this.logs.push('nodeerr', note);
  }

  /** Stops following: the container is being replaced, or the agent is going away. */
  detach(): void {
    this.pump?.stop();
    this.pump = undefined;
    this.following = undefined;
  }
}
