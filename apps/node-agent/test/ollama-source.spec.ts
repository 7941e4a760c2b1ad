import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OllamaModel } from '@ocg/job-definition';
import { OLLAMA_MODELS_PATH, ollamaSource, parseModelName } from '../src/resources/ollama';
import { parseChallenge } from '../src/resources/registry-auth';
import { ResourceError, type ResourceSource } from '../src/resources/source';
import { digestOf, startModelRegistry, type ModelRegistry, type PushedModel } from './support/model-registry';
import { failureOf, fetchAll, readAll } from './support/sources';

let registry: ModelRegistry;
let library: PushedModel;
let tagged: PushedModel;
let dir: string;

beforeAll(async () => {
  registry = await startModelRegistry();
  library = await registry.push('library/tiny', 'latest');
  tagged = await registry.push('testns/tiny', 'q4');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-ollama-'));
}, 60_000);
afterAll(async () => {
  await registry?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => registry.reset());

const source = (model: string, registryUrl = registry.url) => ollamaSource({ type: 'Ollama', model } as OllamaModel, { fetch }, { registryUrl });

/** Writes every file under `root` as the fetch stage would, after checking each against its listed size and digest. */
async function pullInto(root: string, s: ResourceSource): Promise<string[]> {
  const { key, bytes } = await fetchAll(s);
  for (const [p, b] of bytes) {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), b);
  }
  return key;
}

function expectLayout(root: string, manifestPath: string, model: PushedModel): void {
  expect(fs.readFileSync(path.join(root, 'manifests', manifestPath)).equals(model.manifest)).toBe(true);
  for (const [digest, bytes] of model.blobs) {
    const file = path.join(root, 'blobs', digest.replace(':', '-'));
    expect(digestOf(fs.readFileSync(file))).toBe(digest);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  }
  expect(fs.readdirSync(path.join(root, 'blobs')).sort()).toEqual([...model.blobs.keys()].map((d) => d.replace(':', '-')).sort());
}

describe('model runner source', () => {
  it('pulls host/namespace/name:tag into the runner layout: the manifest under its host, each blob by digest', async () => {
    const root = path.join(dir, 'tagged');
    const key = await pullInto(root, source(`${registry.host}/testns/tiny:q4`));
    expectLayout(root, `${registry.host}/testns/tiny/q4`, tagged);
    expect(key).toEqual(['ollama', registry.url, `${registry.host}/testns/tiny:q4`, digestOf(tagged.manifest)]);
    // The registry challenged for a pull token once; the token served the manifest and every blob.
    expect(registry.tokensIssued()).toBe(1);
  });

  it('writes a bare name as the runner names it (its registry, library, latest) while pulling from the configured registry', async () => {
    const root = path.join(dir, 'library');
    await pullInto(root, source('tiny'));
    expectLayout(root, 'registry.ollama.ai/library/tiny/latest', library);
    expect(OLLAMA_MODELS_PATH).toBe('/root/.ollama/models');
  });

  it('reads the name forms with their defaults and refuses what is not a name', () => {
    expect(parseModelName('tiny')).toEqual({ host: 'registry.ollama.ai', namespace: 'library', name: 'tiny', tag: 'latest' });
    expect(parseModelName('ns/tiny:q4_K_M')).toEqual({ host: 'registry.ollama.ai', namespace: 'ns', name: 'tiny', tag: 'q4_K_M' });
    expect(parseModelName('reg.example:5000/ns/tiny')).toEqual({ host: 'reg.example:5000', namespace: 'ns', name: 'tiny', tag: 'latest' });
    for (const bad of ['', 'a/b/c/d', 'ns/../tiny', 'tiny:', 'tiny@sha256:00', '/tiny', 'tiny:a/b']) expect(parseModelName(bad)).toBeUndefined();
  });

  it('fails not-found for a tag or a model the registry does not have', async () => {
    expect((await failureOf(source(`${registry.host}/testns/tiny:q8`).resolve(AbortSignal.timeout(5000)))).failure).toBe('not-found');
    expect((await failureOf(source('nothing').resolve(AbortSignal.timeout(5000)))).failure).toBe('not-found');
  });

  it('resumes a blob from an offset', async () => {
    const s = source(`${registry.host}/testns/tiny:q4`);
    const { files } = await s.resolve(AbortSignal.timeout(5000));
    const weights = [...tagged.blobs.values()].find((b) => b.length > 40_000) as Buffer;
    const file = files.find((f) => f.size === weights.length) as (typeof files)[number];
    expect((await readAll(await s.open(file, 30_000, AbortSignal.timeout(5000)))).equals(weights.subarray(30_000))).toBe(true);
    expect(registry.blobBytesSent()).toBe(weights.length - 30_000);
  });

  it('asks for a new token when the registry challenges again (an expired token)', async () => {
    const s = source(`${registry.host}/testns/tiny:q4`);
    const { files } = await s.resolve(AbortSignal.timeout(5000));
    registry.expireTokens();
    const blob = files[1];
    expect((await readAll(await s.open(blob, 0, AbortSignal.timeout(5000)))).length).toBe(blob.size);
    expect(registry.tokensIssued()).toBe(2);
  });

  it('fails denied when the token realm refuses the repository or the registry wants a login', async () => {
    registry.privateRepositories.add('testns/tiny');
    try {
      const err = await failureOf(source(`${registry.host}/testns/tiny:q4`).resolve(AbortSignal.timeout(5000)));
      expect(err.failure).toBe('denied');
      expect(err.message).toContain('testns/tiny:q4');
    } finally {
      registry.privateRepositories.clear();
    }
    expect((await failureOf(source('tiny', registry.directUrl).resolve(AbortSignal.timeout(5000)))).failure).toBe('denied');
  });

  it('asks the host a model names when it is neither the runner registry nor the configured one', async () => {
    const asked: string[] = [];
    const refusing: typeof fetch = (input) => {
      asked.push(String(input));
      return Promise.reject(new ResourceError('refused', 'not allowed'));
    };
    const s = ollamaSource({ type: 'Ollama', model: 'reg.example:5000/ns/tiny' }, { fetch: refusing }, { registryUrl: registry.url });
    expect((await failureOf(s.resolve(AbortSignal.timeout(5000)))).failure).toBe('refused');
    expect(asked).toEqual(['https://reg.example:5000/v2/ns/tiny/manifests/latest']);
  });

  it('reads a Bearer challenge with quoted and bare parameters', () => {
    expect(parseChallenge('Bearer realm="https://auth.example/token",service=registry,scope="repository:a/b:pull"')).toEqual({
      realm: 'https://auth.example/token',
      service: 'registry',
      scope: 'repository:a/b:pull',
    });
    expect(parseChallenge('Basic realm="x"')).toBeUndefined();
  });
});
