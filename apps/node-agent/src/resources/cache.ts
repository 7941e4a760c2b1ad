/**
 * The node's resource cache, shared by every job: one directory per cache
 * key under `<dir>/entries/<id>` (id: sha256 of the kind and the key's
 * parts), complete or absent. A download fills `<dir>/partial/<id>.<n>`
 * and is renamed into place once every file is verified, so an entry never
 * holds partial data. `<dir>/index.json` keeps each entry's size and last
 * use across restarts; what it does not list is removed at start. Entries
 * are evicted least-recently-used beyond the budget, never while a job holds
 * one and never when pinned (the resources the node keeps warm).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';

export interface CacheEntry {
  id: string;
  kind: string;
  label: string;
  bytes: number;
  files: number;
  /** Unix ms. */
  lastUsed: number;
}

interface Index {
  version: 1;
  entries: CacheEntry[];
}

interface Flight {
  promise: Promise<string>;
  controller: AbortController;
  waiters: number;
}

/** Fills `dir` with the entry's files; resolves with the bytes written. */
export type Fill = (dir: string, signal: AbortSignal) => Promise<number>;

export const cacheId = (kind: string, key: string[]): string =>
  createHash('sha256')
    .update([kind, ...key].join('\0'))
    .digest('hex');

export class ResourceCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly flights = new Map<string, Flight>();
  /** Entry id → the holders (jobs) that mount it. */
  private readonly holders = new Map<string, Set<string>>();
  private readonly pinned = new Set<string>();
  private saving: Promise<void> = Promise.resolve();
  /** Evictions started in the background. */
  private readonly chores = new Set<Promise<void>>();

  private constructor(
    readonly dir: string,
    private readonly budgetBytes: number,
    private readonly logger: Logger,
  ) {}

  /** Opens the cache at `dir` (absolute), dropping what an earlier agent left incomplete. */
  static async open(dir: string, budgetBytes: number, logger: Logger): Promise<ResourceCache> {
    const cache = new ResourceCache(path.resolve(dir), budgetBytes, logger);
    await cache.load();
    return cache;
  }

  entryDir(id: string): string {
    return path.join(this.dir, 'entries', id);
  }

  /** Scratch space beside the entries (same file system): private copies for writable mounts. */
  workDir(name: string): string {
    return path.join(this.dir, 'work', name);
  }

  get usedBytes(): number {
    let sum = 0;
    for (const e of this.entries.values()) sum += e.bytes;
    return sum;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  list(): CacheEntry[] {
    return [...this.entries.values()];
  }

  /** Never evicted (kept warm). */
  pin(id: string): void {
    this.pinned.add(id);
  }

  /** No longer kept warm: evicted again like any entry (least-recently-used, under the budget), not removed now. */
  unpin(id: string): void {
    this.pinned.delete(id);
    this.later(this.evict());
  }

  isPinned(id: string): boolean {
    return this.pinned.has(id);
  }

  hold(id: string, holder: string): void {
    let set = this.holders.get(id);
    if (!set) this.holders.set(id, (set = new Set()));
    set.add(holder);
  }

  /** The holder (a job) no longer mounts anything: its entries may be evicted again. */
  release(holder: string): void {
    for (const [id, set] of this.holders) {
      set.delete(holder);
      if (set.size === 0) this.holders.delete(id);
    }
    this.later(this.evict());
  }

  /**
   * The entry's directory, filled by `fill` unless it is cached or being
   * filled for another holder (then that download is awaited: one download
   * for any number of jobs). The holder holds the entry from now on. A
   * waiter's signal ends its wait; the download stops once no one waits.
   */
  async obtain(meta: Omit<CacheEntry, 'lastUsed'>, holder: string, signal: AbortSignal, fill: Fill): Promise<{ dir: string; cached: boolean }> {
    this.hold(meta.id, holder);
    const known = this.entries.get(meta.id);
    if (known) {
      known.lastUsed = Date.now();
      this.save();
      return { dir: this.entryDir(meta.id), cached: true };
    }
    let flight = this.flights.get(meta.id);
    if (!flight) {
      const controller = new AbortController();
      flight = { controller, waiters: 0, promise: this.download(meta, fill, controller.signal) };
      this.flights.set(meta.id, flight);
      const started = flight;
      void started.promise.catch(() => undefined).finally(() => this.flights.get(meta.id) === started && this.flights.delete(meta.id));
    }
    return { dir: await this.wait(flight, signal), cached: false };
  }

  private async wait(flight: Flight, signal: AbortSignal): Promise<string> {
    flight.waiters++;
    let onAbort: () => void = () => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([flight.promise, aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (--flight.waiters === 0) flight.controller.abort(new Error('no job waits for this resource any more'));
    }
  }

  private async download(meta: Omit<CacheEntry, 'lastUsed'>, fill: Fill, signal: AbortSignal): Promise<string> {
    await this.evict(meta.bytes);
    const partial = path.join(this.dir, 'partial', `${meta.id}.${randomBytes(4).toString('hex')}`);
    await mkdir(partial, { recursive: true });
    try {
      const bytes = await fill(partial, signal);
      await rm(this.entryDir(meta.id), { recursive: true, force: true });
      await rename(partial, this.entryDir(meta.id));
      this.entries.set(meta.id, { ...meta, bytes, lastUsed: Date.now() });
      this.save();
      this.later(this.evict());
      return this.entryDir(meta.id);
    } catch (err) {
      await rm(partial, { recursive: true, force: true });
      throw err;
    }
  }

  /** Removes least-recently-used entries no job holds and nobody pinned until `room` more bytes fit the budget. */
  async evict(room = 0): Promise<void> {
    const candidates = [...this.entries.values()].filter((e) => !this.holders.has(e.id) && !this.pinned.has(e.id)).sort((a, b) => a.lastUsed - b.lastUsed);
    let used = this.usedBytes;
    for (const entry of candidates) {
      if (used + room <= this.budgetBytes) break;
      this.entries.delete(entry.id);
      used -= entry.bytes;
      this.logger.info({ resource: entry.label, bytes: entry.bytes }, 'resource evicted from the cache');
      await rm(this.entryDir(entry.id), { recursive: true, force: true });
    }
    this.save();
  }

  private async load(): Promise<void> {
    for (const sub of ['entries', 'partial', 'work']) await mkdir(path.join(this.dir, sub), { recursive: true });
    await rm(path.join(this.dir, 'partial'), { recursive: true, force: true });
    await mkdir(path.join(this.dir, 'partial'));
    let index: Index = { version: 1, entries: [] };
    try {
      index = JSON.parse(await readFile(path.join(this.dir, 'index.json'), 'utf8')) as Index;
    } catch {
      // No index (first start) or a torn one: whatever is on disk is unknown and goes.
    }
    const present = new Set(await readdir(path.join(this.dir, 'entries')));
    for (const entry of index.entries ?? []) if (present.has(entry.id)) this.entries.set(entry.id, entry);
    for (const name of present) if (!this.entries.has(name)) await rm(this.entryDir(name), { recursive: true, force: true });
    await this.saveNow();
  }

  /** Writes the index (atomically: a new file renamed over the old), one write at a time. */
  private save(): void {
    this.saving = this.saving.then(() => this.saveNow()).catch((err: unknown) => this.logger.error({ err }, 'could not write the resource cache index'));
  }

  private async saveNow(): Promise<void> {
    const file = path.join(this.dir, 'index.json');
    const index: Index = { version: 1, entries: this.list() };
    await writeFile(`${file}.new`, JSON.stringify(index));
    await rename(`${file}.new`, file);
  }

  private later(chore: Promise<void>): void {
    const tracked = chore.catch((err: unknown) => this.logger.error({ err }, 'resource cache eviction failed')).finally(() => this.chores.delete(tracked));
    this.chores.add(tracked);
  }

  /** Resolves once background evictions are done and the index on disk is current. */
  async flushed(): Promise<void> {
    await Promise.all(this.chores);
    await this.saving;
  }
}
