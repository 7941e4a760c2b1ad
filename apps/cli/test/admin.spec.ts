/**
 * The admin commands against a real gateway, host-manager and client-manager
 * (child processes on a fresh database), as an operator would run them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { generateApiKey } from '@ocg/auth';
import { freePort, launchServices, testDatabase, testRedis, type LaunchedStack, type TestDatabase } from '@ocg/testing';
import { registerAdminBenchmarks } from '../src/commands/admin-benchmarks';
import { registerAdminMarkets } from '../src/commands/admin-markets';
import { registerAdminNodes } from '../src/commands/admin-nodes';

jest.setTimeout(60_000);

let stack: LaunchedStack;
let database: TestDatabase;
let gateway: string;
let dir: string;
const adminKey = generateApiKey();
let out = '';

async function run(...args: string[]): Promise<string> {
  out = '';
  const admin = new Command('admin').exitOverride();
  registerAdminMarkets(admin);
  registerAdminNodes(admin);
  registerAdminBenchmarks(admin);
  await admin.parseAsync(args, { from: 'user' });
  return out;
}

const asAdmin = ['--gateway', '', '--api-key', adminKey];
const withAdmin = (...args: string[]) => {
  asAdmin[1] = gateway;
  return run(...args, ...asAdmin);
};

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

beforeAll(async () => {
  database = await testDatabase();
  const ports = { 'client-manager': await freePort(), 'host-manager': await freePort(), gateway: await freePort() };
  const lines: string[] = [];
  stack = await launchServices({
    only: ['client-manager', 'host-manager', 'gateway'],
    databaseUrl: database.url,
    redisUrl: (await testRedis()).url,
    ports,
    logLevel: 'warn',
    // tsx applies a tsconfig only to files it includes; the root one includes only tools/.
    env: { INTERNAL_TOKEN: 'internal-token-for-cli-tests' },
    serviceEnv: { 'client-manager': { ADMIN_API_KEY: adminKey, MASTER_KEY: 'cd'.repeat(32) } },
    onLine: (line) => lines.push(line),
  }).catch((err: Error) => {
    throw new Error(`${err.message}\n${lines.slice(-20).join('\n')}`);
  });
  gateway = stack.urls.gateway;
  dir = mkdtempSync(join(tmpdir(), 'admin-cli-'));
});

afterAll(async () => {
  await stack?.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
});
afterEach(() => jest.restoreAllMocks());

describe('admin markets', () => {
  it('creates a market and prints its address, price in units and credits, and the join token once', async () => {
    const text = await withAdmin('markets', 'create', '--name', 'RTX 4090', '--price-per-second', '250', '--gpu', '--max-duration', '14400');
    expect(text).toMatch(/^created market RTX 4090\naddress {6}[1-9A-HJ-NP-Za-km-z]{43,44}\nprice {8}250 units \(0\.00025 credits\) per second\nGPU {10}required\n/);
    expect(text).toMatch(/duration {5}7200 s by default, at most 14400 s/);
    expect(text).toMatch(/join token {3}mjt_\w+\n\(the join token is shown only now/);
  });

  it('lists markets as a table', async () => {
    await withAdmin('markets', 'create', '--name', 'CPU', '--price-per-second', '5');
    const lines = (await withAdmin('markets', 'list')).trim().split('\n');
    expect(lines[0]).toMatch(/^NAME +ADDRESS +PRICE\/S +GPU +DEFAULT +MAX$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[0])).toEqual(['CPU', 'RTX 4090']);
    expect(lines[1]).toMatch(/5 units \(0\.000005 credits\)\s+no\s+7200s\s+86400s$/);
  });

  it('says which fields the gateway refused', async () => {
    await expect(withAdmin('markets', 'create', '--name', 'bad name!', '--price-per-second', '1')).rejects.toThrow(/ValidationError \(400\).*\n {2}\/name: /);
  });

  it('refuses a price that is not a whole number of units before calling the gateway', async () => {
    await expect(withAdmin('markets', 'create', '--name', 'X', '--price-per-second', '0.5')).rejects.toThrow('--price-per-second must be a whole number, got "0.5"');
  });

  it('explains a refused key (401) and a key without the scope (403)', async () => {
    await expect(run('markets', 'list', '--gateway', gateway, '--api-key', generateApiKey())).rejects.toThrow(/refused the API key \(401\).*--api-key or OCG_API_KEY/);
    const reader = await createKey(['markets:read']);
    await expect(run('markets', 'create', '--name', 'Y', '--price-per-second', '1', '--gateway', gateway, '--api-key', reader)).rejects.toThrow(
      /may not do this \(403\).*markets:manage/,
    );
  });

  it('says the gateway cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await expect(run('markets', 'list', '--gateway', closed, '--api-key', adminKey)).rejects.toThrow(`cannot reach the gateway at ${closed}: ECONNREFUSED`);
  });

  it('asks for an API key when none is given', async () => {
    const saved = process.env.OCG_API_KEY;
    delete process.env.OCG_API_KEY;
    try {
      await expect(run('markets', 'list', '--gateway', gateway)).rejects.toThrow(/no API key: pass --api-key or set OCG_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.OCG_API_KEY = saved;
    }
  });
});

describe('admin markets limits and join tokens, admin nodes', () => {
  it("sets a market's job limits and container policy, keeping what is left out", async () => {
    await withAdmin('markets', 'create', '--name', 'Limits', '--price-per-second', '1');
    const text = await withAdmin(
      'markets',
      'limits',
      'Limits',
      '--max-ops',
      '8',
      '--cpus-per-container',
      '0.5',
      '--volumes-per-job',
      '1073741824',
      '--resources-per-job',
      '2147483648',
      '--user',
      '1000:1000',
      '--read-only-root',
    );
    expect(text).toMatch(/job limits {3}8 ops, 16 volumes; per container 0\.5 CPUs/);
    expect(text).toMatch(/per job .* 1073741824 bytes of volumes, 2147483648 bytes of remote resources \(107374182400 each\)/);
    expect(text).toMatch(/containers {3}run as 1000:1000, root filesystem read-only/);
    const json = JSON.parse(await withAdmin('markets', 'limits', 'Limits', '--no-read-only-root', '--user', 'image', '--json'));
    expect(json.jobLimits).toMatchObject({ maxOps: 8, cpusPerContainer: 0.5, volumeBytesPerJob: 1073741824, resourceBytesPerJob: 2147483648 });
    expect(json.containerPolicy).toEqual({ user: null, readOnlyRootFilesystem: false });
    await expect(withAdmin('markets', 'limits', 'Limits', '--cpus-per-container', 'lots')).rejects.toThrow('--cpus-per-container must be a number of CPUs');
  });

  it("lists, adds and removes the resources a market's nodes keep warm", async () => {
    await withAdmin('markets', 'create', '--name', 'Warm', '--price-per-second', '1');
    expect(await withAdmin('markets', 'warm', 'Warm')).toBe('market Warm keeps no resources warm\n');
    const file = join(mkdtempSync(join(tmpdir(), 'warm-')), 'warm.json');
    writeFileSync(
      file,
      JSON.stringify([
        { type: 'HF', repo: 'org/model', target: '/m' },
        { type: 'S3', url: 'https://s3.example.net/b', target: '/b' },
      ]),
    );
    await withAdmin('markets', 'warm', 'Warm', '--add', '{"type":"Ollama","model":"tiny:1b"}', '--add', file);
    const lines = (await withAdmin('markets', 'warm', 'Warm', '--remove', '2')).trim().split('\n');
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      ['1', 'ollama tiny:1b', '(default)'],
      ['2', 's3 https://s3.example.net/b', '/b'],
    ]);
    await expect(withAdmin('markets', 'warm', 'Warm', '--add', '{"type":"HF","target":"/m"}')).rejects.toThrow(/\(400\).*\n {2}\/warmResources\/2/);
    expect(JSON.parse(await withAdmin('markets', 'warm', 'Warm', '--clear', '--json'))).toEqual([]);
  });

  it("rotates a join token, optionally revoking the market's nodes", async () => {
    await withAdmin('markets', 'create', '--name', 'Rotating', '--price-per-second', '1');
    expect(await withAdmin('markets', 'rotate-join-token', 'Rotating', '--revoke-nodes')).toMatch(
      /^new join token mjt_\w+\n\(shown only now; the old one no longer works; no nodes were revoked\)/,
    );
  });

  it('lists nodes and says when a node to disable or remove is unknown', async () => {
    expect(await withAdmin('nodes', 'list')).toBe('no nodes\n');
    await expect(withAdmin('nodes', 'disable', 'NoSuchNode')).rejects.toThrow(/\(404\).*No node with the address "NoSuchNode"/);
    await expect(withAdmin('nodes', 'remove', 'NoSuchNode', '--reason', 'gone')).rejects.toThrow(/\(404\)/);
  });
});

describe('admin benchmarks apply', () => {
  const gemma = resolve(__dirname, 'fixtures/gemma4-benchmarks.json');

  it('turns a Gemma4 benchmark file into a template and shows a dry run without writing', async () => {
    const text = await withAdmin('benchmarks', 'apply', '--file', gemma, '--name', 'gemma4', '--market', 'rtx 4090');
    expect(text.split('\n')).toEqual([
      'SLUG        STATUS  METRICS  ADD  REMOVE  NEW THRESHOLD  IN SYNC',
      'gemma4-26b  added   +3       +1   -       yes            no',
      'dry run: nothing written; 1 to change. Run again with --apply to write',
      '',
    ]);
    expect(await withAdmin('benchmarks', 'apply', '--file', gemma, '--name', 'gemma4', '--market', 'rtx 4090')).toMatch(/gemma4-26b +added/);
  });

  it('writes with --apply, then reports everything in sync', async () => {
    expect(await withAdmin('benchmarks', 'apply', '--file', gemma, '--name', 'gemma4', '--market', 'RTX 4090', '--apply')).toMatch(/applied: 1 written in one transaction/);
    const again = await withAdmin('benchmarks', 'apply', '--file', gemma, '--name', 'gemma4', '--market', 'RTX 4090', '--apply');
    expect(again).toMatch(/gemma4-26b +unchanged +=3 +- +- +no +yes\napplied: nothing needed changing/);
  });

  it('takes the request body as a file, prunes with --prune, and prints JSON with --json', async () => {
    const body = file('empty.json', { templates: [] });
    const json = JSON.parse(await withAdmin('benchmarks', 'apply', '--file', body, '--prune', '--json'));
    expect(json.dryRun).toBe(true);
    expect(json.changes.map((c: { slug: string; status: string }) => [c.slug, c.status])).toEqual([['gemma4-26b', 'removed']]);
  });

  it('prints each offending path of a rejected request', async () => {
    const body = file('bad.json', {
      templates: [{ slug: 'x', operation: { name: 'x', ops: [], metrics: [{ key: 'a' }] }, requirements: [], supportedMarkets: ['nowhere'], threshold: { metric: 'b' } }],
    });
    await expect(withAdmin('benchmarks', 'apply', '--file', body)).rejects.toThrow(
      /ValidationError \(400\): Templates rejected, nothing written.*\n {2}\/templates\/0\/supportedMarkets\/0: .*\n {2}\/templates\/0\/threshold\/metric: /,
    );
  });

  it('asks for --name when given a benchmark file without it', async () => {
    await expect(withAdmin('benchmarks', 'apply', '--file', gemma)).rejects.toThrow(/is a benchmark file: give --name/);
  });

  it('refuses a file that is neither a request nor a benchmark file', async () => {
    await expect(withAdmin('benchmarks', 'apply', '--file', file('other.json', { hello: 1 }))).rejects.toThrow(/neither an apply request/);
  });
});

async function createKey(scopes: string[]): Promise<string> {
  const res = await fetch(`${gateway}/api-keys/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'cli test', scopes }),
  });
  return ((await res.json()) as { key: string }).key;
}
