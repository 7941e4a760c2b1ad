/** One resource's files into a directory: a few at once, each retried with backoff and resumed from where it stopped, then verified. */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3File } from './s3';
import { ResourceError, type RemoteFile, type ResourceSource } from './source';

export interface DownloadSettings {
  /** Files of one resource at once. */
  fileConcurrency: number;
  /** Further attempts per file after a failure that may pass (timeout, unavailable, a digest mismatch). */
  retries: number;
  /** The first retry waits this long, each next one twice as long. */
  backoffMs: number;
  /** A file that sends nothing this long is retried. */
  idleTimeoutMs: number;
}

/** Bytes and files done so far, updated as data arrives. */
export interface Counter {
  bytes: number;
  files: number;
  changed(): void;
}

const RETRYABLE = new Set(['timeout', 'unavailable']);

export async function downloadAll(source: ResourceSource, files: RemoteFile[], dir: string, settings: DownloadSettings, counter: Counter, signal: AbortSignal): Promise<number> {
  const queue = [...files];
  let total = 0;
  const worker = async (): Promise<void> => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      total += await downloadFile(source, file, path.join(dir, ...file.path.split('/')), settings, counter, signal);
      counter.files++;
      counter.changed();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(settings.fileConcurrency, files.length)) }, worker));
  return total;
}

async function downloadFile(
  source: ResourceSource,
  file: RemoteFile & Partial<S3File>,
  to: string,
  settings: DownloadSettings,
  counter: Counter,
  signal: AbortSignal,
): Promise<number> {
  await mkdir(path.dirname(to), { recursive: true });
  let counted = 0;
  const count = (n: number): void => {
    counted += n;
    counter.bytes += n;
  };
  for (let attempt = 0; ; attempt++) {
    const offset = await sizeOf(to);
    count(offset - counted);
    try {
      const hashes = await fetchFrom(source, file, to, offset, settings, count, signal);
      await verify(source, file, to, hashes);
      return await sizeOf(to);
    } catch (err) {
      const failure = asFailure(err, source, file, signal);
      const retry = RETRYABLE.has(failure.failure) && attempt < settings.retries && !signal.aborted;
      if (!retry) throw failure;
      counter.changed();
      await sleep(settings.backoffMs * 2 ** attempt, signal);
    }
  }
}

type Hashes = { sha256: Hash; md5: Hash } | undefined;

/** Appends the file's bytes from `offset`; from the start, the digests are computed on the way. */
async function fetchFrom(
  source: ResourceSource,
  file: RemoteFile,
  to: string,
  offset: number,
  settings: DownloadSettings,
  count: (n: number) => void,
  signal: AbortSignal,
): Promise<Hashes> {
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), settings.idleTimeoutMs);
  const both = AbortSignal.any([signal, idle.signal]);
  const hashes = offset === 0 ? { sha256: createHash('sha256'), md5: createHash('md5') } : undefined;
  const digest = hashes && (file.sha256 || (file as S3File).md5);
  try {
    const body = await source.open(file, offset, both);
    const counting = new Transform({
      transform(chunk: Buffer, _enc, done) {
        clearTimeout(timer);
        timer = setTimeout(() => idle.abort(), settings.idleTimeoutMs);
        count(chunk.length);
        if (digest) {
          if (file.sha256) hashes.sha256.update(chunk);
          if ((file as S3File).md5) hashes.md5.update(chunk);
        }
        done(null, chunk);
      },
    });
    await pipeline(body, counting, createWriteStream(to, { flags: offset > 0 ? 'a' : 'w' }), { signal: both });
    return hashes;
  } catch (err) {
    if (idle.signal.aborted && !signal.aborted) throw new ResourceError('timeout', `${source.label} ${file.path}: no data for ${Math.round(settings.idleTimeoutMs / 1000)} s`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** Size, then the digests the source gave; a mismatch removes the file, so the retry starts over. */
async function verify(source: ResourceSource, file: RemoteFile & Partial<S3File>, to: string, computed: Hashes): Promise<void> {
  const size = await sizeOf(to);
  if (file.size !== undefined && size !== file.size) {
    // Longer than listed: the object changed under us; shorter: the transfer ended early. Either way, again.
    if (size > file.size) await rm(to, { force: true });
    throw new ResourceError('unavailable', `${source.label} ${file.path}: ${size} bytes instead of ${file.size}`);
  }
  if (!file.sha256 && !file.md5) return;
  let hashes = computed;
  if (!hashes) {
    hashes = { sha256: createHash('sha256'), md5: createHash('md5') };
    for await (const chunk of createReadStream(to)) {
      if (file.sha256) hashes.sha256.update(chunk as Buffer);
      if (file.md5) hashes.md5.update(chunk as Buffer);
    }
  }
  const bad = (file.sha256 && hashes.sha256.digest('hex') !== file.sha256.toLowerCase()) || (file.md5 && hashes.md5.digest('hex') !== file.md5);
  if (bad) {
    await rm(to, { force: true });
    throw new ResourceError('unavailable', `${source.label} ${file.path}: the bytes do not match the digest the source lists`);
  }
}

function asFailure(err: unknown, source: ResourceSource, file: RemoteFile, signal: AbortSignal): ResourceError {
  if (err instanceof ResourceError) return err;
  const e = err as NodeJS.ErrnoException;
  if (signal.aborted) return new ResourceError('timeout', `${source.label}: cancelled`);
  if (e.code === 'ENOSPC' || e.code === 'EDQUOT') return new ResourceError('too-large', `${source.label} ${file.path}: the node's disk is full`);
  return new ResourceError('unavailable', `${source.label} ${file.path}: ${e.code ?? e.name}: ${e.message}`);
}

async function sizeOf(file: string): Promise<number> {
  return stat(file).then(
    (s) => s.size,
    () => 0,
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
