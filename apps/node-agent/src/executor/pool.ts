/**
 * At most `size` tasks at once; the others wait in order. A task whose
 * signal aborts while it waits leaves the queue at once and never runs: a
 * job that ended must not have its remaining container starts run later.
 */
export class Pool {
  private active = 0;
  private readonly queue: { start: () => void; cancel: () => void }[] = [];

  constructor(readonly size: number) {}

  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Runs `work` over every item, at most `size` at once here (besides the pool's other users). */
  all<I, T>(items: I[], work: (item: I) => Promise<T>): Promise<T[]> {
    return Promise.all(items.map((item) => this.run(() => work(item))));
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(aborted());
    if (this.active < this.size) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        start: () => {
          signal?.removeEventListener('abort', entry.cancel);
          this.active++;
          resolve();
        },
        cancel: () => {
          const i = this.queue.indexOf(entry);
          if (i >= 0) this.queue.splice(i, 1);
          reject(aborted());
        },
      };
      signal?.addEventListener('abort', entry.cancel, { once: true });
      this.queue.push(entry);
    });
  }

  private release(): void {
    this.active--;
    this.queue.shift()?.start();
  }
}

export class CancelledError extends Error {
  override name = 'CancelledError';
}

function aborted(): CancelledError {
  return new CancelledError('cancelled: the op was stopped before it could start');
}
