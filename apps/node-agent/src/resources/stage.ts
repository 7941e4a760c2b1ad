/**
 * The fetch stage: before an op's container is created, each of its
 * resources is resolved, taken from the cache or downloaded into it, and
 * becomes a bind mount (read-only; a private copy when `allowWrite`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { cp, lstat, readdir, rm, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type Docker from 'dockerode';
import type { Logger } from 'pino';
import type { ResourceLimits } from '../docker/container-spec';
import { LABEL } from '../docker/labels';
import type { NodeResourceProgress } from '@ocg/contracts';
import type { Resource, ResourceItem } from '@ocg/job-definition';
import { Pool } from '../executor/pool';
import { cacheId, type ResourceCache } from './cache';
import { downloadAll, type DownloadSettings } from './download';
import { guardedFetch, type ResourcePolicy } from './network';
import { OLLAMA_MODELS_PATH } from './ollama';
import type { S3File, S3Source } from './s3';
import { ResourceError, type ResourceSource, type SourceContext } from './source';
import { sourceFor, type SourceSettings } from './sources';

export interface StageSettings extends DownloadSettings, Omit<SourceSettings, 'policy' | 'idleTimeoutMs'> {
  /** Resources fetched at once over every job. */
  concurrency: number;
  /** Largest resource, and largest sum of one job's resources, in bytes. */
  maxResourceBytes: number;
  maxJobBytes: number;
  policy: ResourcePolicy;
}

export interface Mount {
  Type: 'bind';
  Source: string;
  Target: string;
  ReadOnly: boolean;
}

/** An op's fetched resources: its mounts, and what to do once it ended (upload writable copies, remove them). */
export interface Prepared {
  mounts: Mount[];
  /** The cache entries mounted. */
  ids: string[];
  finish(): Promise<void>;
}

/** The holder of the entries kept warm. */
const KEEP = 'node:keep';

type Shown = NodeResourceProgress & { id?: string };
/** A writable copy and what it started as: the cache entry it was copied from, or (adopted after a restart) the source's listing. */
type Copy = { dir: string; source: ResourceSource; entry: string } | { dir: string; source: ResourceSource; listed: S3File[] };

export class ResourceStage {
  private readonly pool: Pool;
  private readonly ctx: SourceContext;
  /** Downloads in progress by cache id: every op waiting for one shows its progress. */
  private readonly live = new Map<string, { bytes: number; files: number }>();
  /** Bytes of resources each job mounts. */
  private readonly jobBytes = new Map<string, number>();

  private readonly closer = new AbortController();

  constructor(
    readonly cache: ResourceCache,
    private readonly settings: StageSettings,
    private readonly logger: Logger,
  ) {
    this.pool = new Pool(settings.concurrency);
    this.ctx = { fetch: guardedFetch(settings.policy) };
  }

  /**
   * Fetches the op's resources (markers already resolved by the literals)
   * and reports progress; throws a ResourceError naming the first resource
   * that failed. Partial data never stays: the cache keeps only complete
   * entries, and private copies are removed.
   */
  async prepare(
    job: string,
    op: string,
    items: ResourceItem[],
    signal: AbortSignal,
    onProgress: (progress: NodeResourceProgress[]) => void,
    market: ResourceLimits = {},
  ): Promise<Prepared> {
    const resources = remoteResources(items);
    const shown = resources.map((r): Shown => ({
      resource: describe(r),
      target: targetOf(r),
      state: 'waiting',
      cached: false,
      bytesDone: 0,
      bytesTotal: null,
      filesDone: 0,
      filesTotal: null,
    }));
    const report = (): void =>
      onProgress(
        shown.map(({ id, ...p }) => {
          const live = id ? this.live.get(id) : undefined;
          return live && p.state === 'fetching' ? { ...p, bytesDone: live.bytes, filesDone: live.files } : p;
        }),
      );
    report();
    const tick = setInterval(report, 500).unref();
    const copies: Copy[] = [];
    const failure = new AbortController();
    const both = AbortSignal.any([signal, failure.signal]);
    try {
      const mounts = await Promise.all(
        resources.map(async (resource, i) => {
          try {
            return await this.pool.run(() => this.one(job, op, resource, shown[i], both, report, copies, market), both);
          } catch (err) {
            shown[i].state = 'failed';
            failure.abort();
            throw err;
          }
        }),
      );
      return { mounts, ids: shown.map((p) => p.id ?? ''), finish: () => this.finish(copies) };
    } catch (err) {
      await Promise.all(copies.map((c) => rm(c.dir, { recursive: true, force: true })));
      throw firstFailure(err, signal);
    } finally {
      clearInterval(tick);
      report();
    }
  }

  /** Aborts when the agent closes. */
  get closing(): AbortSignal {
    return this.closer.signal;
  }

  close(): void {
    this.closer.abort();
  }

  /**
   * Fetches one resource the node keeps warm and pins its cache entries (never evicted until unpinned); answers their
   * ids. Called for one resource at a time (WarmSet): the holds it takes while fetching are released at its end.
   */
  async warm(item: ResourceItem, signal: AbortSignal): Promise<string[]> {
    try {
      const prepared = await this.prepare(KEEP, 'keep', [item], signal, () => undefined);
      for (const id of prepared.ids) this.cache.pin(id);
      await prepared.finish(); // an allowWrite copy is not wanted here
      return prepared.ids;
    } finally {
      this.jobBytes.delete(KEEP);
      this.cache.release(KEEP);
    }
  }

  /**
   * After a restart: jobs the agent adopted keep the entries their containers
   * mount (bind sources under the cache) held until they end.
   */
  async holdMounted(docker: Docker, node: string): Promise<void> {
    const entries = path.dirname(this.cache.entryDir('x')) + path.sep;
    const containers = await docker.listContainers({ all: true, filters: { label: [`${LABEL.node}=${node}`] } });
    for (const c of containers) {
      const job = c.Labels[LABEL.job];
      for (const m of c.Mounts ?? []) if (job && m.Source?.startsWith(entries)) this.cache.hold(m.Source.slice(entries.length).split(path.sep)[0], job);
    }
  }

  /**
   * After a restart: what the op's end must do with the writable copies of an
   * adopted op (its bind mounts under `work/`), the closure that did it being
   * gone with the old agent. The entry a copy came from may have been evicted
   * since, so the copy is compared with the source's listing (size, and the
   * MD5 when the ETag is one; a file of the same size without one is uploaded).
   */
  async adoptCopies(items: ResourceItem[], mounts: Array<{ Source?: string; Destination?: string }>, signal: AbortSignal): Promise<Prepared['finish'] | undefined> {
    const work = path.dirname(this.cache.workDir('x')) + path.sep;
    const copies: Copy[] = [];
    for (const resource of remoteResources(items)) {
      if (!('allowWrite' in resource && resource.allowWrite)) continue;
      const mount = mounts.find((m) => m.Destination === targetOf(resource) && m.Source?.startsWith(work));
      if (!mount?.Source) continue;
      const source = sourceFor(resource, this.ctx, this.settings);
      const { files } = await source.resolve(signal);
      copies.push({ dir: mount.Source, source, listed: files as S3File[] });
    }
    return copies.length > 0 ? () => this.finish(copies) : undefined;
  }

  /** The job ended: its entries may be evicted again. */
  release(job: string): void {
    this.jobBytes.delete(job);
    this.cache.release(job);
  }

  private async one(job: string, op: string, resource: Resource, mine: Shown, signal: AbortSignal, report: () => void, copies: Copy[], market: ResourceLimits): Promise<Mount> {
    const source = sourceFor(resource, this.ctx, this.settings);
    mine.resource = source.label;
    mine.state = 'resolving';
    report();
    const { key, files } = await source.resolve(signal);
    const bytes = files.reduce((sum, f) => sum + (f.size ?? 0), 0);
    Object.assign(mine, { bytesTotal: files.every((f) => f.size !== undefined) ? bytes : null, filesTotal: files.length });
    this.checkSize(job, source.label, bytes, market);
    const id = cacheId(source.kind, key);
    mine.id = id;
    if (!this.cache.has(id)) mine.state = 'fetching';
    report();
    const fill = async (dir: string, fillSignal: AbortSignal): Promise<number> => {
      this.logger.info({ job, op, resource: source.label, files: files.length, bytes }, 'fetching resource');
      const counter = { bytes: 0, files: 0, changed: () => undefined };
      this.live.set(id, counter);
      try {
        return await downloadAll(source, files, dir, this.settings, counter, fillSignal);
      } finally {
        this.live.delete(id);
      }
    };
    const { dir, cached } = await this.cache.obtain({ id, kind: source.kind, label: source.label, bytes, files: files.length }, job, signal, fill);
    Object.assign(mine, { state: 'ready', cached, bytesDone: bytes, filesDone: files.length });
    report();
    if (!('allowWrite' in resource && resource.allowWrite)) return { Type: 'bind', Source: dir, Target: mine.target, ReadOnly: true };
    const copy = this.cache.workDir(`${id.slice(0, 16)}-${randomBytes(6).toString('hex')}`);
    copies.push({ dir: copy, source, entry: dir });
    await cp(dir, copy, { recursive: true, preserveTimestamps: true });
    return { Type: 'bind', Source: copy, Target: mine.target, ReadOnly: false };
  }

  /** The smaller of the node's limits and the market's (sent with the claim), each named as whose it is. */
  private checkSize(job: string, label: string, bytes: number, market: ResourceLimits): void {
    const gb = (n: number): string => `${(n / 1e9).toFixed(2)} GB`;
    const bound = (node: number, theirs: number | undefined) =>
      theirs !== undefined && theirs < node ? { max: theirs, whose: "the market's" } : { max: node, whose: "this node's" };
    const each = bound(this.settings.maxResourceBytes, market.perResource);
    if (bytes > each.max) throw new ResourceError('too-large', `${label}: ${gb(bytes)} is more than ${each.whose} limit per resource (${gb(each.max)})`);
    const sum = (this.jobBytes.get(job) ?? 0) + bytes;
    const all = bound(this.settings.maxJobBytes, market.perJob);
    if (sum > all.max) throw new ResourceError('too-large', `${label}: the job's resources would reach ${gb(sum)}, more than ${all.whose} limit per job (${gb(all.max)})`);
    this.jobBytes.set(job, sum);
  }

  /** Uploads what the op changed in its writable copies (new or different files), deletes what it deleted, then removes the copies. */
  private async finish(copies: Copy[]): Promise<void> {
    for (const copy of copies) {
      try {
        const source = copy.source as Partial<S3Source>;
        if (!source.upload || !source.remove) continue;
        for (const rel of await changedFiles(copy)) {
          const file = path.join(copy.dir, ...rel.split('/'));
          const { size } = await stat(file);
          await source.upload(rel, createReadStream(file), size, AbortSignal.timeout(30 * 60_000));
        }
        for (const rel of await deletedFiles(copy)) await source.remove(rel, AbortSignal.timeout(60_000));
      } finally {
        await rm(copy.dir, { recursive: true, force: true });
      }
    }
  }
}

/** Objects only: `__remove-if-empty__` is dropped and spreads are expanded by the literals; a spread left means its value never came. */
function remoteResources(items: ResourceItem[]): Resource[] {
  return items
    .filter((item): item is Exclude<ResourceItem, string> => typeof item !== 'string')
    .map((item) => {
      if ('__spread__' in item) throw new ResourceError('invalid', `resources: ${String(item.__spread__)} was not resolved`);
      return item;
    });
}

function targetOf(resource: Resource): string {
  return resource.target ?? OLLAMA_MODELS_PATH;
}

function describe(resource: Resource): string {
  if (resource.type === 'HF') return `hf ${resource.repo}`;
  if (resource.type === 'Ollama') return `ollama ${resource.model}`;
  return 's3';
}

function firstFailure(err: unknown, signal: AbortSignal): Error {
  if (err instanceof ResourceError || signal.aborted) return err as Error;
  return new ResourceError('unavailable', (err as Error).message);
}

/** Files of the copy that are new or differ in size or content from what it started as, as '/'-separated paths. */
async function changedFiles(copy: Copy): Promise<string[]> {
  const out: string[] = [];
  const listed = 'listed' in copy ? new Map(copy.listed.map((f) => [f.path, f])) : undefined;
  const same = (file: string, name: string): Promise<boolean> => ('entry' in copy ? sameFile(file, path.join(copy.entry, name)) : matchesListing(file, listed?.get(name)));
  for (const name of await filesUnder(copy.dir)) if (!(await same(path.join(copy.dir, name), name))) out.push(name);
  return out;
}

/** Files the copy started with and no longer has (the op deleted them). */
async function deletedFiles(copy: Copy): Promise<string[]> {
  const out: string[] = [];
  const started = 'listed' in copy ? copy.listed.map((f) => f.path) : await filesUnder(copy.entry);
  for (const name of started) if (!(await lstat(path.join(copy.dir, ...name.split('/'))).catch(() => undefined))) out.push(name);
  return out;
}

async function matchesListing(file: string, listed: S3File | undefined): Promise<boolean> {
  if (!listed || listed.size === undefined || listed.md5 === undefined) return false;
  if ((await stat(file)).size !== listed.size) return false;
  return (await digest(file, 'md5')) === listed.md5;
}

/** Regular files under `dir`, as '/'-separated paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const d of await readdir(path.join(dir, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) await walk(name);
      else if (d.isFile()) out.push(name);
    }
  };
  await walk('');
  return out;
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([stat(a), stat(b).catch(() => undefined)]);
  if (!sb || sa.size !== sb.size) return false;
  if (sa.mtimeMs === sb.mtimeMs) return true;
  const [ha, hb] = await Promise.all([digest(a), digest(b)]);
  return ha === hb;
}

async function digest(file: string, algorithm = 'sha256'): Promise<string> {
  const h = createHash(algorithm);
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}
