/**
 * Model hub and model runner resources through the node's fetch stage:
 * a local hub (LFS files on another port) and Debian's docker-registry
 * holding a model in the runner's layout. First fetch, cached fetch (no file
 * bytes sent: counted at the servers), one download for two jobs at once,
 * and a failure of each kind.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@ocg/testing';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, startTestAgent, type TestAgent } from './support/harness';
import { RESOURCE_TEST_ENV } from './support/resource-env';
import { startModelHub, type ModelHub } from './support/model-hub';
import { digestOf, startModelRegistry, type ModelRegistry, type PushedModel } from './support/model-registry';
import { sha256 } from './support/sources';

const node = newNodeId('models');
const TOKEN = `hf_${randomBytes(12).toString('hex')}`;
const weights = randomBytes(6000);
const adapter = randomBytes(2000);
let t: TestAgent;
let hub: ModelHub;
let registry: ModelRegistry;
let tagged: PushedModel;
let cacheDir: string;

beforeAll(async () => {
  await prepareEngine();
  cacheDir = await mkdtemp(path.join(os.tmpdir(), 'resource-cache-'));
  hub = await startModelHub({
    'org/tiny': { revisions: { main: { 'config.json': '{"layers":2}', 'model.safetensors': weights, 'lora/a.safetensors': adapter } } },
    'org/private': { revisions: { main: { 'model.bin': weights } }, token: TOKEN },
    'org/big': { revisions: { main: { 'huge.bin': randomBytes(3_000_000) } } },
    'org/stalled': { revisions: { main: { 'slow.bin': randomBytes(2000) } }, stalls: true },
  });
  registry = await startModelRegistry();
  tagged = await registry.push('testns/tiny', 'q4');
  await registry.push('library/tiny', 'latest');
  await registry.push('testns/private', 'latest');
  registry.privateRepositories.add('testns/private');
  t = await startTestAgent(node, {
    RESOURCE_CACHE_DIR: cacheDir,
    ...RESOURCE_TEST_ENV,
    RESOURCE_HUB_URL: hub.url,
    RESOURCE_OLLAMA_REGISTRY_URL: registry.url,
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
  const left = t ? await leftovers(t.docker, node) : [];
  if (t) await removeEverything(t.docker, node);
  await hub?.stop();
  await registry?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  expect(left).toEqual([]);
});

const stdout = (job: string, op: string): string[] =>
  t.agent.executor
    .logs(job, op)
    .lines({ streams: new Set(['stdout']) })
    .map((l) => l.text);

async function run(id: string, script: string, resources: object[]) {
  const { job } = await t.submit(definition([runOp(id, script, { args: { resources } })]));
  return { job, summary: await t.waitEnded(job) };
}

const HF = { type: 'HF', repo: 'org/tiny', target: '/m', files: ['config.json', 'model.safetensors'] };
const HF_SCRIPT = 'cat /m/config.json; echo; sha256sum /m/model.safetensors | cut -d" " -f1; ls /m';
/** Lists the runner's layout and checks each blob against its name. */
const LAYOUT_SCRIPT = [
  'cd /root/.ollama/models',
  'find . -type f | sort',
  'for f in blobs/*; do [ "sha256-$(sha256sum "$f" | cut -d" " -f1)" = "${f#blobs/}" ] || echo "BAD $f"; done',
  'sha256sum manifests/*/*/*/* | cut -d" " -f1',
].join('; ');

describe('model hub resources', () => {
  it('mounts the listed files at the commit, then serves a second job from the cache without a file byte', async () => {
    hub.reset();
    const first = await run('hub', HF_SCRIPT, [HF]);
    expect([first.summary.ops[0].state, first.summary.ops[0].reason]).toEqual(['completed', null]);
    expect(stdout(first.job, 'hub')).toEqual(['{"layers":2}', sha256(weights), 'config.json', 'model.safetensors']);
    expect(hub.fileBytesSent()).toBe('{"layers":2}'.length + weights.length);
    expect(first.summary.ops[0].resources?.map((r) => [r.state, r.cached, r.filesDone, r.bytesDone])).toEqual([['ready', false, 2, 12 + weights.length]]);

    hub.reset();
    const second = await run('hub', HF_SCRIPT, [HF]);
    expect(second.summary.state).toBe('completed');
    expect(stdout(second.job, 'hub')).toEqual(stdout(first.job, 'hub'));
    expect(hub.fileBytesSent()).toBe(0);
    expect(second.summary.ops[0].resources?.[0].cached).toBe(true);
  });

  it('downloads a repository once for two jobs that want it at the same time, the token reaching the hub only', async () => {
    hub.reset();
    const resource = { type: 'HF', repo: 'org/private', target: '/p', accessToken: TOKEN };
    const [a, b] = await Promise.all([run('both', 'sha256sum /p/model.bin | cut -d" " -f1', [resource]), run('both', 'sha256sum /p/model.bin | cut -d" " -f1', [resource])]);
    expect([a.summary.state, b.summary.state]).toEqual(['completed', 'completed']);
    expect([...stdout(a.job, 'both'), ...stdout(b.job, 'both')]).toEqual([sha256(weights), sha256(weights)]);
    expect(hub.fileBytesSent()).toBe(weights.length);
    expect(hub.requests.filter((r) => r.server === 'lfs').every((r) => !r.authorized)).toBe(true);
  });
});

describe('model runner resources', () => {
  it("pulls a model into the runner's layout at its default path, then serves a second job from the cache without a blob byte", async () => {
    registry.reset();
    const resource = { type: 'Ollama', model: `${registry.host}/testns/tiny:q4` };
    const first = await run('runner', LAYOUT_SCRIPT, [resource]);
    expect([first.summary.ops[0].state, first.summary.ops[0].reason]).toEqual(['completed', null]);
    const blobs = [...tagged.blobs.keys()].map((d) => `./blobs/${d.replace(':', '-')}`).sort();
    expect(stdout(first.job, 'runner')).toEqual([...blobs, `./manifests/${registry.host}/testns/tiny/q4`, digestOf(tagged.manifest).slice('sha256:'.length)]);
    const blobBytes = [...tagged.blobs.values()].reduce((n, b) => n + b.length, 0);
    expect(registry.blobBytesSent()).toBe(blobBytes);

    registry.reset();
    const second = await run('runner', LAYOUT_SCRIPT, [resource]);
    expect(second.summary.state).toBe('completed');
    expect(stdout(second.job, 'runner')).toEqual(stdout(first.job, 'runner'));
    expect(registry.blobBytesSent()).toBe(0);
  });

  it('pulls a bare model name once for two jobs that want it at the same time', async () => {
    registry.reset();
    const script = 'ls /root/.ollama/models/manifests/registry.ollama.ai/library/tiny';
    const [a, b] = await Promise.all([run('both', script, [{ type: 'Ollama', model: 'tiny' }]), run('both', script, [{ type: 'Ollama', model: 'tiny' }])]);
    expect([a.summary.state, b.summary.state]).toEqual(['completed', 'completed']);
    expect([...stdout(a.job, 'both'), ...stdout(b.job, 'both')]).toEqual(['latest', 'latest']);
    expect(registry.blobBytesSent()).toBeGreaterThan(40_000);
    expect(registry.blobBytesSent()).toBeLessThan(2 * 40_000);
  });
});

describe('a resource that cannot be fetched', () => {
  it.each([
    ['not found (a listed file)', { type: 'HF', repo: 'org/tiny', target: '/x', files: ['missing.bin'] }, 'not in the repository: missing.bin'],
    ['denied (a wrong token)', { type: 'HF', repo: 'org/private', target: '/x', accessToken: 'hf_wrong_token' }, 'access token is missing or wrong'],
    ['too large', { type: 'HF', repo: 'org/big', target: '/x' }, "more than this node's limit per resource"],
    ['timed out', { type: 'HF', repo: 'org/stalled', target: '/x' }, 'slow.bin: no data for 1 s'],
    ['not found (a tag)', { type: 'Ollama', model: 'TAGGED:q8' }, 'tag q8 not found'],
    ['denied (a private model)', { type: 'Ollama', model: 'testns/private' }, 'pull token refused'],
    ['refused (a private address)', { type: 'Ollama', model: '127.0.0.2:9/ns/tiny' }, 'RESOURCE_ALLOW'],
    ['invalid (not a model name)', { type: 'Ollama', model: 'a/b/c/d' }, 'not a model name'],
  ])('fails the op when the resource is %s, naming it, and keeps no partial data', async (_kind, resource, why) => {
    const item = JSON.parse(JSON.stringify(resource).replace('TAGGED', `${registry.host}/testns/tiny`)) as object;
    const { summary } = await run('fail', 'echo never', [item]);
    expect(summary.state).toBe('failed');
    expect(summary.ops[0].reason).toMatch(/a resource could not be fetched: (hf|ollama) /);
    expect(summary.ops[0].reason).toContain(why);
    expect(summary.ops[0].reason).not.toContain('hf_wrong_token');
    expect(await readdir(path.join(cacheDir, 'partial'))).toEqual([]);
  });

  it('fails the op when the registry is unavailable', async () => {
    const { summary } = await run('fail', 'echo never', [{ type: 'Ollama', model: `127.0.0.1:${await freePort()}/ns/tiny` }]);
    expect(summary.state).toBe('failed');
    expect(summary.ops[0].reason).toContain('ECONNREFUSED');
  });
});
