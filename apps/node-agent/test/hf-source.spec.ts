import { randomBytes } from 'node:crypto';
import type { HfRepository } from '@ocg/job-definition';
import { freePort } from '@ocg/testing';
import { hfSource } from '../src/resources/hf';
import { bodyFrom } from '../src/resources/remote-http';
import { ResourceError, type RemoteFile } from '../src/resources/source';
import { startModelHub, type ModelHub } from './support/model-hub';
import { failureOf, fetchAll, readAll, sha256 } from './support/sources';

const weights = randomBytes(5000);
const adapter = randomBytes(3000);
const TOKEN = `hf_${randomBytes(12).toString('hex')}`;
let hub: ModelHub;

beforeAll(async () => {
  hub = await startModelHub({
    'org/tiny': {
      revisions: {
        main: { 'config.json': '{"layers":2}', 'model.safetensors': weights, 'lora/a.safetensors': adapter, 'lora/README.md': 'adapters' },
        v1: { 'config.json': '{"layers":1}' },
      },
    },
    'org/private': { revisions: { main: { 'model.bin': weights } }, token: TOKEN },
  });
});
afterAll(() => hub?.stop());
beforeEach(() => hub.reset());

const source = (r: Partial<HfRepository>, hubUrl = hub.url) => hfSource({ type: 'HF', target: '/models', repo: 'org/tiny', ...r }, { fetch }, { hubUrl });

describe('model hub source', () => {
  it('resolves main to its commit and lists every file with its size, and LFS files with their sha256', async () => {
    const { key, files, bytes } = await fetchAll(source({}));
    expect(key).toEqual(['hf', hub.url, 'org/tiny', hub.commit('org/tiny', 'main'), '*']);
    expect(files.map((f) => f.path).sort()).toEqual(['config.json', 'lora/README.md', 'lora/a.safetensors', 'model.safetensors']);
    expect(files.find((f) => f.path === 'model.safetensors')).toEqual({ path: 'model.safetensors', size: 5000, sha256: sha256(weights) });
    expect(bytes.get('config.json')?.toString()).toBe('{"layers":2}');
    expect(bytes.get('model.safetensors')?.equals(weights)).toBe(true);
    // LFS files come from the redirect's host.
    expect(hub.requests.filter((r) => r.server === 'lfs')).toHaveLength(2);
  });

  it('downloads a named revision at its own commit', async () => {
    const { key, bytes } = await fetchAll(source({ revision: 'v1' }));
    expect(key[3]).toBe(hub.commit('org/tiny', 'v1'));
    expect([...bytes.keys()]).toEqual(['config.json']);
    expect(bytes.get('config.json')?.toString()).toBe('{"layers":1}');
  });

  it('fetches only the listed files, a listed directory with everything under it', async () => {
    const { key, files } = await fetchAll(source({ files: ['model.safetensors', 'lora/'] }));
    expect(files.map((f) => f.path).sort()).toEqual(['lora/README.md', 'lora/a.safetensors', 'model.safetensors']);
    expect(key.slice(4)).toEqual(['lora', 'model.safetensors']);
  });

  it('fails not-found naming a listed file the repository does not have', async () => {
    const err = await failureOf(source({ files: ['config.json', 'model-00002.safetensors'] }).resolve(AbortSignal.timeout(5000)));
    expect(err.failure).toBe('not-found');
    expect(err.message).toContain('model-00002.safetensors');
  });

  it('fails not-found for a repository or revision that does not exist', async () => {
    expect((await failureOf(source({ repo: 'org/nothing' }).resolve(AbortSignal.timeout(5000)))).failure).toBe('not-found');
    expect((await failureOf(source({ revision: 'v9' }).resolve(AbortSignal.timeout(5000)))).failure).toBe('not-found');
  });

  it('refuses a private repository without its token or with a wrong one, and never shows the token', async () => {
    for (const accessToken of [undefined, 'hf_wrong']) {
      const err = await failureOf(source({ repo: 'org/private', accessToken }).resolve(AbortSignal.timeout(5000)));
      expect(err.failure).toBe('denied');
      expect(err.message).toContain('org/private');
    }
    const s = source({ repo: 'org/private', accessToken: TOKEN });
    const { key, bytes } = await fetchAll(s);
    expect(bytes.get('model.bin')?.equals(weights)).toBe(true);
    expect(JSON.stringify([s.label, key])).not.toContain(TOKEN);
  });

  it('sends the token to the hub only, never to the host an LFS file redirects to', async () => {
    await fetchAll(source({ repo: 'org/private', accessToken: TOKEN }));
    expect(hub.requests.filter((r) => r.server === 'hub').every((r) => r.authorized)).toBe(true);
    expect(hub.requests.filter((r) => r.server === 'lfs')).toEqual([expect.objectContaining({ authorized: false })]);
  });

  it('resumes a file from an offset with a Range request, through the redirect too', async () => {
    const s = source({});
    const { files } = await s.resolve(AbortSignal.timeout(5000));
    const lfsFile = files.find((f) => f.path === 'model.safetensors')!;
    expect((await readAll(await s.open(lfsFile, 1234, AbortSignal.timeout(5000)))).equals(weights.subarray(1234))).toBe(true);
    expect(hub.requests.find((r) => r.server === 'lfs')?.range).toBe('bytes=1234-');
    const small = files.find((f) => f.path === 'config.json')!;
    expect((await readAll(await s.open(small, 1, AbortSignal.timeout(5000)))).toString()).toBe('"layers":2}');
  });

  it('skips the bytes before the offset itself when a server ignores Range', async () => {
    const body = bodyFrom(new Response(Buffer.from('0123456789'), { status: 200 }), 4, 'hf x', 'file f');
    expect((await readAll(body)).toString()).toBe('456789');
  });

  it('fails unavailable when the hub does not answer and timeout when the fetch is aborted', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const down = await failureOf(source({}, closed).resolve(AbortSignal.timeout(5000)));
    expect([down.failure, down.message]).toEqual(['unavailable', expect.stringMatching(/^hf org\/tiny@main: .*ECONNREFUSED/)]);
    const aborted = AbortSignal.abort();
    expect((await failureOf(source({}).resolve(aborted))).failure).toBe('timeout');
  });

  it("passes each redirect through the node's fetch, whose refusal stays the failure", async () => {
    const lfsHost = new URL(hub.lfsUrl).host;
    const policed: typeof fetch = (input, init) => {
      if (new URL(String(input)).host === lfsHost) return Promise.reject(new ResourceError('refused', `${lfsHost} is a private address`));
      return fetch(input, init);
    };
    const s = hfSource({ type: 'HF', target: '/models', repo: 'org/tiny' }, { fetch: policed }, { hubUrl: hub.url });
    const { files } = await s.resolve(AbortSignal.timeout(5000));
    const err = await failureOf(s.open(files.find((f) => f.path === 'model.safetensors') as RemoteFile, 0, AbortSignal.timeout(5000)));
    expect([err.failure, err.message]).toEqual(['refused', `hf org/tiny@main: ${lfsHost} is a private address`]);
  });

  it('refuses a repository name that is not one before asking the hub', async () => {
    expect((await failureOf(source({ repo: '../../admin' }).resolve(AbortSignal.timeout(5000)))).failure).toBe('invalid');
    expect((await failureOf(source({ files: ['../etc/passwd'] }).resolve(AbortSignal.timeout(5000)))).failure).toBe('invalid');
    expect(hub.requests).toEqual([]);
  });
});
