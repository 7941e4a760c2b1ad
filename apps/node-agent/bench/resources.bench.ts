/**
 * The fetch stage against a plain download, from one S3-compatible server
 * (s3rver on 127.0.0.1) holding one 200 MB object: the resource fetch
 * (list, download, verify, commit to the cache) against an HTTP GET of the
 * same object written to a file, as a throughput ratio (target >= 0.8), and
 * a cached fetch (the listing only) in ms. Medians over a few rounds.
 * `npx tsx apps/node-agent/bench/resources.bench.ts [rounds] [MB]`
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createLogger } from '@ocg/http';
import S3rver from 's3rver';
import { ResourceCache } from '../src/resources/cache';
import { resourcePolicy } from '../src/resources/network';
import { ResourceStage } from '../src/resources/stage';

const ROUNDS = Number(process.argv[2] ?? 5);
const MB = Number(process.argv[3] ?? 200);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function plainGet(url: string, to: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    http
      .get(url, (res) => {
        pipeline(res, createWriteStream(to)).then(resolve, reject);
      })
      .on('error', reject);
  });
}

async function main(): Promise<void> {
  const logger = createLogger({ service: 'bench', level: 'silent' });
  const work = await mkdtemp(path.join(os.tmpdir(), 'resource-bench-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: path.join(work, 's3'), silent: true });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    const admin = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await admin.send(new CreateBucketCommand({ Bucket: 'bench' }));
    const blob = Buffer.alloc(MB * 1024 * 1024, 7);
    await admin.send(new PutObjectCommand({ Bucket: 'bench', Key: 'model/blob.bin', Body: blob, ContentLength: blob.length }));
    const resource = { type: 'S3' as const, url: `${endpoint}/bench/model`, target: '/m' };
    const settings = {
      concurrency: 3,
      fileConcurrency: 4,
      retries: 0,
      backoffMs: 100,
      idleTimeoutMs: 30_000,
      maxResourceBytes: 1e12,
      maxJobBytes: 1e12,
      policy: resourcePolicy(['127.0.0.1']),
      hubUrl: 'https://hub.invalid',
      registryUrl: 'https://registry.invalid',
    };
    const plain: number[] = [];
    const fetched: number[] = [];
    const cached: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const dir = path.join(work, `cache-${round}`);
      const stage = new ResourceStage(await ResourceCache.open(dir, 1e12, logger), settings, logger);
      const target = path.join(work, 'plain.bin');
      const timePlain = async (): Promise<void> => {
        const t0 = performance.now();
        await plainGet(`${endpoint}/bench/model/blob.bin`, target);
        plain.push(performance.now() - t0);
        await rm(target);
      };
      const timeFetch = async (): Promise<void> => {
        const t0 = performance.now();
        await stage.prepare(`job-${round}`, 'op', [resource], AbortSignal.timeout(600_000), () => undefined);
        fetched.push(performance.now() - t0);
      };
      // Alternate which goes first: the machine's load drifts.
      if (round % 2 === 0) await timePlain().then(timeFetch);
      else await timeFetch().then(timePlain);
      const t0 = performance.now();
      await stage.prepare(`job-${round}b`, 'op', [resource], AbortSignal.timeout(60_000), () => undefined);
      cached.push(performance.now() - t0);
      stage.close();
      await stage.cache.flushed();
      await rm(dir, { recursive: true, force: true });
    }
    const ratio = median(plain) / median(fetched);
    const row = {
      MB,
      rounds: ROUNDS,
      plainMs: Math.round(median(plain)),
      fetchMs: Math.round(median(fetched)),
      ratio: Number(ratio.toFixed(2)),
      cachedMs: Math.round(median(cached)),
    };
    console.log(JSON.stringify(row));
    console.log(`fetch ${row.fetchMs} ms vs plain GET ${row.plainMs} ms: ${row.ratio}x (target >= 0.8x); cached fetch ${row.cachedMs} ms`);
    if (ratio < 0.8) process.exitCode = 1;
  } finally {
    await server.close();
    await rm(work, { recursive: true, force: true });
  }
}

void main();
