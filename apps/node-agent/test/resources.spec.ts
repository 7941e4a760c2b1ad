/**
 * Remote resources from a real S3-compatible server (s3rver) on 127.0.0.1,
 * behind a proxy that counts the object bytes it serves: the three
 * object-storage forms, IAM, the cache, one download for concurrent jobs,
 * allowWrite, and a failure of each kind.
 */
import http from 'node:http';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, startTestAgent, waitFor, type TestAgent } from './support/harness';
import { RESOURCE_TEST_ENV } from './support/resource-env';

const node = newNodeId('resources');
let t: TestAgent;
let s3: S3rver;
let proxy: http.Server;
let url: string;
let cacheDir: string;
let s3Dir: string;
/** Object bytes served (GET of a key, not listings). */
let served = 0;
/** Set: the next object response is cut after this many bytes (a dropped connection). */
let cutAfter: number | undefined;
/** Range headers of object requests. */
const ranges: string[] = [];
/** The credential each request was signed with ('' unsigned), by bucket. */
const signedBy = new Map<string, Set<string>>();
let stall: http.Server;
let stallUrl: string;

const KEY = { REGION: 'us-east-1', ACCESS_KEY_ID: 'S3RVER', SECRET_ACCESS_KEY: 'S3RVER' };
const BIG = 'x'.repeat(3_000_000);

beforeAll(async () => {
  await prepareEngine();
  s3Dir = await mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  cacheDir = await mkdtemp(path.join(os.tmpdir(), 'resource-cache-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', directory: s3Dir, silent: true });
  const { port } = await s3.run();
  proxy = http.createServer((req, res) => {
    const object = req.method === 'GET' && !/[?&](list-type|prefix)=/.test(req.url ?? '');
    const bucket = (req.url ?? '').split(/[/?]/)[1];
    const credential = /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1] ?? '';
    signedBy.set(bucket, (signedBy.get(bucket) ?? new Set()).add(credential));
    if (object && req.headers.range) ranges.push(req.headers.range);
    const cut = object ? cutAfter : undefined;
    if (object) cutAfter = undefined;
    const up = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      let sent = 0;
      r.on('data', (chunk: Buffer) => {
        const part = cut === undefined ? chunk : chunk.subarray(0, Math.max(0, cut - sent));
        sent += part.length;
        served += object ? part.length : 0;
        if (part.length > 0) res.write(part);
        if (cut !== undefined && sent >= cut) res.destroy();
      });
      r.on('end', () => res.end());
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  stall = http.createServer(() => undefined);
  await new Promise<void>((resolve) => stall.listen(0, '127.0.0.1', resolve));
  stallUrl = `http://127.0.0.1:${(stall.address() as AddressInfo).port}`;
  const admin = client();
  for (const bucket of ['models', 'second', 'big', 'out']) await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  const put = (Bucket: string, Key: string, Body: string) => admin.send(new PutObjectCommand({ Bucket, Key, Body }));
  await put('models', 'llm/config.json', '{"layers":2}');
  await put('models', 'llm/weights/part-1.bin', 'weights-one');
  await put('models', 'other/ignored.txt', 'not listed');
  await put('second', 'tokenizer.json', 'tokens');
  await put('second', 'shared/a.txt', 'concurrent');
  await put('big', 'huge.bin', BIG);
  await put('out', 'keep.txt', 'original');
  t = await startTestAgent(node, {
    RESOURCE_CACHE_DIR: cacheDir,
    ...RESOURCE_TEST_ENV,
    RESOURCE_KEEP: JSON.stringify([{ type: 'S3', url: `${url}/second/tokenizer.json`, target: '/unused' }]),
    METRICS_PORT: '0',
  });
  // The warm set downloads at start: done before any test counts bytes.
  await waitFor(async () => (await readFile(path.join(cacheDir, 'index.json'), 'utf8')).includes('second/tokenizer.json'), 'the kept resource in the cache');
});

afterAll(async () => {
  await t?.close();
  const left = await leftovers(t.docker, node);
  await removeEverything(t.docker, node);
  await s3?.close();
  proxy?.close();
  stall?.close();
  await rm(s3Dir, { recursive: true, force: true });
  await rm(cacheDir, { recursive: true, force: true });
  expect(left).toEqual([]);
});

function client(): S3Client {
  return new S3Client({ endpoint: url, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
}

/** One op that prints what its resources hold. */
function reader(id: string, script: string, resources: object[]): object {
  return definition([runOp(id, script, { args: { resources } })]);
}

const THREE_FORMS = [
  { type: 'S3', url: `URL/models/llm`, target: '/one', files: ['config.json'] },
  { type: 'S3', url: 'URL', bucket: 'second', target: '/bucket', IAM: KEY },
  { type: 'S3', target: '/several', buckets: [{ url: 'URL/models/llm/weights' }, { url: 'URL/second', files: ['tokenizer.json'] }] },
  '__remove-if-empty__',
];
const withUrl = (resources: unknown[], base: string): object[] => JSON.parse(JSON.stringify(resources).replaceAll('URL', base)) as object[];

const stdout = (job: string, op: string): string[] =>
  t.agent.executor
    .logs(job, op)
    .lines({ streams: new Set(['stdout']) })
    .map((l) => l.text);

async function run(def: object) {
  const { job } = await t.submit(def);
  return { job, summary: await t.waitEnded(job) };
}

it('mounts one location, a whole bucket and several buckets read-only, fetching once and then from the cache', async () => {
  const script =
    'cat /one/config.json /bucket/tokenizer.json /bucket/shared/a.txt /several/part-1.bin /several/tokenizer.json; echo; ls /one; touch /one/x 2>/dev/null || echo read-only';
  const def = reader('read', script, withUrl(THREE_FORMS, url));
  served = 0;
  signedBy.clear();
  const { job, summary } = await run(def);
  // s3rver checks the key id of a SigV4 request but not the signature itself: the IAM form signs, the others do not.
  expect(signedBy).toEqual(
    new Map([
      ['models', new Set([''])],
      ['second', new Set(['', 'S3RVER'])],
    ]),
  );
  expect([summary.ops[0].state, summary.ops[0].reason]).toEqual(['completed', null]);
  const logs = stdout(job, 'read');
  expect(logs).toEqual(['{"layers":2}tokensconcurrentweights-onetokens', 'config.json', 'read-only']);
  expect(served).toBe('{"layers":2}tokensconcurrentweights-onetokens'.length);
  const op = t.reporter.ops.find((e) => e.job === job && e.op.activity === 'fetching resources')?.op;
  expect(op?.resources?.length).toBe(3);
  expect(summary.ops[0].resources?.map((r) => [r.state, r.cached, r.filesDone])).toEqual([
    ['ready', false, 1],
    ['ready', false, 2],
    ['ready', false, 2],
  ]);

  served = 0;
  const again = await run(def);
  expect(again.summary.state).toBe('completed');
  expect(served).toBe(0);
  expect(again.summary.ops[0].resources?.every((r) => r.cached)).toBe(true);
});

it('downloads a resource once for two jobs that want it at the same time', async () => {
  const def = reader('both', 'cat /s/a.txt', withUrl([{ type: 'S3', url: `URL/second/shared`, target: '/s' }], url));
  served = 0;
  const [a, b] = await Promise.all([run(def), run(def)]);
  expect([a.summary.state, b.summary.state]).toEqual(['completed', 'completed']);
  expect(served).toBe('concurrent'.length);
});

it('gives allowWrite a private copy and uploads what the op changed at its end, deleting what it deleted', async () => {
  await client().send(new PutObjectCommand({ Bucket: 'out', Key: 'sub/gone.txt', Body: 'to delete' }));
  const resources = withUrl([{ type: 'S3', url: 'URL/out', target: '/rw', allowWrite: true, IAM: KEY }], url);
  const { summary } = await run(reader('write', 'echo changed > /rw/keep.txt; echo new > /rw/made.txt; rm /rw/sub/gone.txt', resources));
  expect(summary.state).toBe('completed');
  const text = async (Key: string) => (await client().send(new GetObjectCommand({ Bucket: 'out', Key }))).Body!.transformToString();
  expect(await text('made.txt')).toBe('new\n');
  expect(await text('keep.txt')).toBe('changed\n');
  await expect(text('sub/gone.txt')).rejects.toThrow(/key does not exist/i);
  // The upload changed the listing: a later job gets a new entry with the op's files.
  const { job } = await run(reader('read-back', 'cat /r/made.txt', withUrl([{ type: 'S3', url: 'URL/out', target: '/r' }], url)));
  expect(stdout(job, 'read-back')).toEqual(['new']);
});

it.each([
  ['not found', { type: 'S3', url: 'URL/models/llm', target: '/x', files: ['missing.bin'] }, 'not found'],
  ['denied', { type: 'S3', url: 'URL/models/llm', target: '/x', IAM: { ...KEY, ACCESS_KEY_ID: 'UNKNOWN', SECRET_ACCESS_KEY: 'wrong-secret' } }, 'access denied'],
  ['too large', { type: 'S3', url: 'URL/big', target: '/x' }, "more than this node's limit per resource"],
  ['refused', { type: 'S3', url: 'http://127.0.0.2:9/models', target: '/x' }, 'loopback'],
])('fails the op when the resource is %s, naming it, and keeps no partial data', async (_kind, resource, why) => {
  const { summary } = await run(reader('fail', 'echo never', withUrl([resource], url)));
  expect(summary.state).toBe('failed');
  expect(summary.ops[0].reason).toContain('a resource could not be fetched: s3 ');
  expect(summary.ops[0].reason).toContain(why);
  expect(summary.ops[0].reason).not.toMatch(/wrong-secret|UNKNOWN/);
  expect(await readdir(path.join(cacheDir, 'partial'))).toEqual([]);
});

it.each([
  ['per resource', { bytesPerResource: 1 }, "more than the market's limit per resource"],
  ['per job', { resourceBytesPerJob: 1 }, "more than the market's limit per job"],
])("holds a job's resources to its market's limit %s when it is below the node's", async (_kind, bounds, why) => {
  const market = { cpus: 1, memoryBytes: 512 * 1024 ** 2, pids: 256, diskBytes: 1024 ** 3, user: null, readOnlyRootFilesystem: false, ...bounds };
  const resources = withUrl([{ type: 'S3', url: 'URL/models/llm', target: '/x', files: ['config.json'] }], url);
  const { job } = await t.submit(reader('bounded', 'echo never', resources), { containerLimits: market });
  const summary = await t.waitEnded(job);
  expect(summary.state).toBe('failed');
  expect(summary.ops[0].reason).toContain(why);
});

it('resumes a file whose transfer broke from where it stopped', async () => {
  const body = 'resumable-'.repeat(200_000);
  await client().send(new PutObjectCommand({ Bucket: 'models', Key: 'resume/data.txt', Body: body }));
  served = 0;
  ranges.length = 0;
  cutAfter = body.length / 2;
  const { job, summary } = await run(reader('resume', 'wc -c < /r/data.txt', withUrl([{ type: 'S3', url: 'URL/models/resume', target: '/r' }], url)));
  expect(summary.ops[0].state).toBe('completed');
  expect(stdout(job, 'resume').map((l) => l.trim())).toEqual([String(body.length)]);
  // The retry asks for the rest only: from what reached the disk before the break.
  expect(ranges).toEqual([expect.stringMatching(/^bytes=[1-9]\d*-$/)]);
  const offset = Number(/\d+/.exec(ranges[0])![0]);
  expect(offset).toBeLessThanOrEqual(body.length / 2);
  expect(served).toBe(body.length / 2 + body.length - offset);
});

it('fetches the resources the node keeps warm at start, and jobs use them from the cache', async () => {
  served = 0;
  const { summary } = await run(reader('warm', 'cat /t/tokenizer.json', withUrl([{ type: 'S3', url: 'URL/second/tokenizer.json', target: '/t' }], url)));
  expect(summary.ops[0].resources?.[0]).toMatchObject({ state: 'ready', cached: true });
  expect(served).toBe(0);
});

it("keeps its market's resources warm with no job, shows one that fails, and lets one the market drops be evicted again", async () => {
  const admin = client();
  await admin.send(new CreateBucketCommand({ Bucket: 'warm' }));
  await admin.send(new PutObjectCommand({ Bucket: 'warm', Key: 'w.txt', Body: 'warm-bytes' }));
  const warm = t.agent.warm!;
  const cache = warm.stage.cache;
  const item = { type: 'S3', url: `${url}/warm/w.txt`, target: '/w' };
  served = 0;
  warm.setMarket([item, { type: 'S3', url: `${url}/warm/missing.txt`, target: '/m' }]);
  await warm.sync();
  expect(served).toBe('warm-bytes'.length);
  expect(warm.status().map((s) => [s.resource, s.state])).toEqual([
    [`s3 ${url}/second/tokenizer.json`, 'ready'],
    [`s3 ${url}/warm/w.txt`, 'ready'],
    [`s3 ${url}/warm/missing.txt`, 'failed'],
  ]);
  expect(warm.status()[2].error).toMatch(/missing\.txt: (no objects|not found)/);
  const { body } = await t.agent.executor.metrics!.metrics.exposition();
  expect(body).toContain('ocg_node_warm_resources{state="ready"} 2');
  expect(body).toContain('ocg_node_warm_resources{state="failed"} 1');
  const entry = cache.list().find((e) => e.label.includes('/warm/w.txt'))!;
  const kept = cache.list().find((e) => e.label.includes('/second/tokenizer.json'))!;
  expect([cache.isPinned(entry.id), cache.isPinned(kept.id)]).toEqual([true, true]);

  warm.setMarket([]);
  await warm.sync();
  expect(warm.status().map((s) => s.resource)).toEqual([`s3 ${url}/second/tokenizer.json`]);
  // Evictable again, not removed: the node's own RESOURCE_KEEP stays pinned.
  expect([cache.isPinned(entry.id), cache.has(entry.id), cache.isPinned(kept.id)]).toEqual([false, true, true]);
});

it('fails the op with a timeout when the server stops answering', async () => {
  const { summary } = await run(reader('slow', 'echo never', withUrl([{ type: 'S3', url: 'URL/models', target: '/x' }], stallUrl)));
  expect(summary.state).toBe('failed');
  expect(summary.ops[0].reason).toMatch(/s3 127\.0\.0\.1:\d+\/models: timed out/);
});

it("writes an adopted op's writable copy back at its end after an agent restart", async () => {
  const admin = client();
  await admin.send(new CreateBucketCommand({ Bucket: 'adopt' }));
  await admin.send(new PutObjectCommand({ Bucket: 'adopt', Key: 'del.txt', Body: 'to delete' }));
  await admin.send(new PutObjectCommand({ Bucket: 'adopt', Key: 'same.txt', Body: 'unchanged' }));
  const script = 'while [ ! -e /rw/go ]; do sleep 0.1; done; echo late > /rw/late.txt; rm /rw/del.txt';
  const { job } = await t.submit(reader('adopted', script, withUrl([{ type: 'S3', url: 'URL/adopt', target: '/rw', allowWrite: true, IAM: KEY }], url)));
  await t.waitOp(job, 'adopted', 'running');
  await t.close(); // as if killed
  t = await startTestAgent(node, { RESOURCE_CACHE_DIR: cacheDir, ...RESOURCE_TEST_ENV });
  expect(t.agent.adopted).toEqual([job]);
  const [copy] = await readdir(path.join(cacheDir, 'work'));
  await writeFile(path.join(cacheDir, 'work', copy, 'go'), '');
  expect((await t.waitEnded(job)).state).toBe('completed');
  const text = async (Key: string) => (await client().send(new GetObjectCommand({ Bucket: 'adopt', Key }))).Body!.transformToString();
  expect(await text('late.txt')).toBe('late\n');
  await expect(text('del.txt')).rejects.toThrow(/key does not exist/i);
  expect(await readdir(path.join(cacheDir, 'work'))).toEqual([]);
});
