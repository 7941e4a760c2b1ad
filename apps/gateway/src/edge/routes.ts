import type { Logger } from 'pino';
import { isMapWord } from './runtime-api';

export interface EdgeRoutesOptions {
  /** The map file HAProxy looks hosts up in. */
  mapFile: string;
  /** The node domain: a label's host is `<label>.<domain>`. */
  domain: string;
  /** How long an entry stays before the gateway is asked again. */
  ttlMs: number;
  /** Sends runtime API commands together. */
  send: (commands: string[]) => Promise<string>;
  logger: Logger;
  /** Entries at most (the oldest go first). Default 100,000. */
  maxEntries?: number;
}

interface Entry {
  job: string;
  forward: string;
  at: number;
}

/** Commands sent on one connection at most. */
const BATCH = 256;

/**
 * The edge's map of forwards as the gateway keeps it: host → forward, and
 * each job's hosts, changed in HAProxy through its runtime API. Changes are
 * sent in batches, in order, one batch at a time. What the gateway holds is
 * what it asked for; a batch that fails is logged and its entries forgotten,
 * so the next request of those hosts (served by the gateway) asks again.
 */
export class EdgeRoutes {
  /** In the order entries were made: the oldest first, for `sweep`. */
  private readonly hosts = new Map<string, Entry>();
  private readonly jobs = new Map<string, Set<string>>();
  private queue: string[] = [];
  private sending = false;
  private closed = false;
  private readonly suffix: string;

  constructor(private readonly o: EdgeRoutesOptions) {
    this.suffix = `.${o.domain.toLowerCase()}`;
  }

  get size(): number {
    return this.hosts.size;
  }

  /** Jobs with a host in the map. */
  get jobCount(): number {
    return this.jobs.size;
  }

  jobOf(host: string): string | undefined {
    return this.hosts.get(host)?.job;
  }

  /** A label's route has a forward: its host goes straight there (unless it already does). */
  learn(label: string, job: string, forward: string, now = Date.now()): void {
    if (this.closed) return;
    const host = `${label}${this.suffix}`;
    const known = this.hosts.get(host);
    if (known?.forward === forward && known.job === job.toLowerCase()) return;
    if (!isMapWord(host) || !isMapWord(forward)) return;
    if (known) this.forget(host, known);
    else if (this.hosts.size >= (this.o.maxEntries ?? 100_000)) this.dropOldest();
    const key = job.toLowerCase();
    this.hosts.set(host, { job: key, forward, at: now });
    let set = this.jobs.get(key);
    if (!set) this.jobs.set(key, (set = new Set()));
    set.add(host);
    this.push(known ? `set map ${this.o.mapFile} ${host} ${forward}` : `add map ${this.o.mapFile} ${host} ${forward}`);
  }

  /** The job's route changed: its hosts go to the gateway again. */
  dropJob(job: string): void {
    const hosts = this.jobs.get(job.toLowerCase());
    if (!hosts) return;
    for (const host of [...hosts]) this.dropHost(host);
  }

  dropHost(host: string): void {
    const entry = this.hosts.get(host);
    if (!entry) return;
    this.forget(host, entry);
    this.push(`del map ${this.o.mapFile} ${host}`);
  }

  private dropOldest(): void {
    for (const host of this.hosts.keys()) return this.dropHost(host);
  }

  /** Entries older than the TTL go (the next request of each is the gateway's, which looks its route up as it would). */
  sweep(now: number): void {
    for (const [host, entry] of this.hosts) {
      if (now - entry.at < this.o.ttlMs) break;
      this.dropHost(host);
    }
  }

  /** HAProxy started again with an empty map, or its map is being cleared: so is this. */
  reset(): void {
    this.hosts.clear();
    this.jobs.clear();
    this.queue = [];
  }

  /** The edge stops: nothing more is sent. */
  close(): void {
    this.closed = true;
    this.reset();
  }

  private forget(host: string, entry: Entry): void {
    this.hosts.delete(host);
    const set = this.jobs.get(entry.job);
    set?.delete(host);
    if (set?.size === 0) this.jobs.delete(entry.job);
  }

  private push(command: string): void {
    this.queue.push(command);
    if (!this.sending) {
      this.sending = true;
      setImmediate(() => void this.flush());
    }
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        const answer = await this.o.send(batch);
        // Each command answers nothing when it worked, or a line saying why not.
        const complaints = answer.split('\n').filter((l) => l.trim() && !/^(Done\.|Key not found\.)$/.test(l.trim()));
        if (complaints.length > 0) this.o.logger.warn({ answer: complaints.slice(0, 3) }, 'edge proxy refused a change of its map');
      } catch (err) {
        // Some of the batch may have been made: what HAProxy holds is not known any more, so its map is cleared
        // (first thing in the next batch, retried until it is made) and every host is learned again as the gateway serves it.
        this.o.logger.warn({ err: (err as Error).message, changes: batch.length }, 'edge proxy map not changed; its hosts are served by the gateway until it is cleared');
        this.reset();
        this.queue.push(`clear map ${this.o.mapFile}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    this.sending = false;
  }
}
