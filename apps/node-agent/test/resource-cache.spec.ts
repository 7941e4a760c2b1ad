/** The resource cache on a real directory: what survives a restart, what eviction may and may not remove. */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@ocg/http';
import { ResourceCache, cacheId } from '../src/resources/cache';

const logger = createLogger({ service: 'test', level: 'silent' });
let dir: string;
const opened: ResourceCache[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cache-spec-'));
});

afterEach(async () => {
  for (const cache of opened.splice(0)) await cache.flushed();
  await rm(dir, { recursive: true, force: true });
});

/** Fills an entry with one file of `bytes` bytes. */
const fill = (bytes: number) => async (into: string) => {
  await writeFile(path.join(into, 'f.bin'), Buffer.alloc(bytes));
  return bytes;
};
const meta = (name: string, bytes: number) => ({ id: cacheId('test', [name]), kind: 'test', label: name, bytes, files: 1 });
const open = async (budget: number) => {
  const cache = await ResourceCache.open(dir, budget, logger);
  opened.push(cache);
  return cache;
};
const obtain = (cache: ResourceCache, name: string, bytes: number, holder: string) => cache.obtain(meta(name, bytes), holder, AbortSignal.timeout(5000), fill(bytes));

it('keeps complete entries across a restart and drops partial and unindexed ones', async () => {
  const cache = await open(1000);
  await obtain(cache, 'a', 10, 'job1');
  await cache.flushed();
  // What a crash mid-download leaves: a partial directory, an entry directory the index never got.
  await mkdir(path.join(dir, 'partial', 'x.1'), { recursive: true });
  await mkdir(path.join(dir, 'entries', 'stray'), { recursive: true });

  const again = await open(1000);
  expect(again.has(meta('a', 10).id)).toBe(true);
  expect(await obtain(again, 'a', 10, 'job2')).toMatchObject({ cached: true });
  expect(await readdir(path.join(dir, 'partial'))).toEqual([]);
  expect(await readdir(path.join(dir, 'entries'))).toEqual([meta('a', 10).id]);
});

it('evicts the least recently used entry no job holds, never a held or pinned one', async () => {
  const cache = await open(25);
  await obtain(cache, 'held', 10, 'job1');
  await obtain(cache, 'pinned', 10, 'job2');
  cache.pin(meta('pinned', 10).id);
  cache.release('job2');
  await obtain(cache, 'old', 1, 'job3');
  cache.release('job3');
  await obtain(cache, 'new', 10, 'job4');
  await cache.evict();
  // Over budget (31 > 25): "old" goes; "held" (job1) and "pinned" stay, even though that leaves the cache over its budget.
  expect(
    cache
      .list()
      .map((e) => e.label)
      .sort(),
  ).toEqual(['held', 'new', 'pinned']);
  cache.release('job1');
  await cache.evict();
  expect(
    cache
      .list()
      .map((e) => e.label)
      .sort(),
  ).toEqual(['new', 'pinned']);
});

it('downloads once for waiters at the same time, and a waiter that gives up does not stop the others', async () => {
  const cache = await open(1000);
  let fills = 0;
  let finish: () => void = () => undefined;
  let started: () => void = () => undefined;
  const filling = new Promise<void>((resolve) => (started = resolve));
  const slow = async (into: string) => {
    fills++;
    const release = new Promise<void>((resolve) => (finish = resolve));
    started();
    await release;
    return fill(5)(into);
  };
  const quitter = new AbortController();
  const a = cache.obtain(meta('shared', 5), 'job1', AbortSignal.timeout(5000), slow);
  const b = cache.obtain(meta('shared', 5), 'job2', quitter.signal, slow);
  quitter.abort();
  await expect(b).rejects.toThrow();
  await filling;
  finish();
  expect(await a).toMatchObject({ cached: false });
  expect(fills).toBe(1);
});
