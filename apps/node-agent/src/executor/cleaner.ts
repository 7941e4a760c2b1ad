/**
 * Removes what an ended job made, then checks by label that nothing of it is
 * left, and keeps retrying (backing off to 30 s) until the engine is clean:
 * a create that was in flight when the job ended, or an engine too busy to
 * answer, must not leave containers, networks or volumes behind for good.
 */
import type Docker from 'dockerode';
import type { Logger } from 'pino';
import { countJobObjects, removeJobObjects } from '../docker/objects';
import type { Pool } from './pool';

export interface Leftovers {
  /** Ended jobs with objects still in the engine. */
  jobs: number;
  /** Their containers, networks and volumes, as last counted. */
  objects: number;
}

export class Cleaner {
  private readonly left = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly docker: Docker,
    private readonly node: string,
    private readonly pool: Pool,
    private readonly logger: Logger,
  ) {}

  /** Removes the job's objects; resolves after the first pass (retries go on in the background). */
  async clean(job: string, attempt = 0): Promise<void> {
    this.timers.delete(job);
    let count: number;
    try {
      await removeJobObjects(this.docker, this.node, job, this.pool);
      count = await countJobObjects(this.docker, this.node, job);
    } catch (err) {
      this.logger.warn({ job, err }, 'cleanup failed; retrying');
      count = Math.max(1, this.left.get(job) ?? 1);
    }
    if (count === 0) {
      this.left.delete(job);
      return;
    }
    this.left.set(job, count);
    if (this.closed) return;
    const delay = Math.min(30_000, 500 * 2 ** attempt);
    this.logger.warn({ job, objects: count, retryInMs: delay }, 'objects of an ended job are still in the engine; removing them again');
    const timer = setTimeout(() => void this.clean(job, attempt + 1), delay);
    timer.unref();
    this.timers.set(job, timer);
  }

  leftovers(): Leftovers {
    let objects = 0;
    for (const n of this.left.values()) objects += n;
    return { jobs: this.left.size, objects };
  }

  /** Waits until nothing is left, or `timeoutMs` passed; answers what is still left. */
  async settle(timeoutMs: number): Promise<Leftovers> {
    const deadline = Date.now() + timeoutMs;
    while (this.left.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    return this.leftovers();
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
