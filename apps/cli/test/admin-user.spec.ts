import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { generateApiKey } from '@ocg/auth';
import { freePort, testDatabase, testRedis, waitFor, type TestDatabase } from '@ocg/testing';
import { registerAdminUser } from '../src/commands/admin-user';

const root = resolve(__dirname, '../../..');

/** A real client-manager process: the CLI talks to it as it would to the gateway (same paths). */
async function startClientManager(adminKey: string): Promise<{ url: string; child: ChildProcess; db: TestDatabase }> {
  const db = await testDatabase();
  const port = await freePort();
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: db.url,
    REDIS_URL: (await testRedis()).url,
    LOG_LEVEL: 'warn',
    MASTER_KEY: randomBytes(32).toString('hex'),
    ADMIN_API_KEY: adminKey,
    // tsx applies a tsconfig only to the files it includes; the app's own one enables decorators.
    TSX_TSCONFIG_PATH: resolve(root, 'apps/client-manager/tsconfig.json'),
  };
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(root, 'apps/client-manager/src/main.ts')], { cwd: root, env, stdio: 'inherit' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.ok, { timeoutMs: 60_000, what: 'client-manager /readyz' });
  return { url, child, db };
}

describe('admin user create', () => {
  const adminKey = generateApiKey();
  let cm: Awaited<ReturnType<typeof startClientManager>>;
  let out: string;
  let err: string;

  beforeAll(async () => (cm = await startClientManager(adminKey)), 90_000);
  afterAll(async () => {
    if (!cm) return;
    const exited = new Promise((r) => cm.child.once('exit', r));
    cm.child.kill('SIGTERM');
    await exited;
    await cm.db.drop();
  });
  beforeEach(() => {
    out = '';
    err = '';
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    process.exitCode = undefined;
    delete process.env.OCG_GATEWAY_URL;
    delete process.env.OCG_API_KEY;
  });

  async function run(...args: string[]): Promise<void> {
    const admin = new Command('admin').exitOverride().configureOutput({ writeErr: (text) => (err += text), writeOut: (text) => (out += text) });
    registerAdminUser(admin);
    await admin.parseAsync(['user', 'create', ...args], { from: 'user' });
  }

  it('creates the user and prints the first API key, which then works', async () => {
    await run('--email', 'ada@example.com', '--name', 'Ada', '--gateway', cm.url, '--api-key', adminKey);
    expect(process.exitCode).toBeUndefined();
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^created user usr_\w+ <ada@example.com>$/);
    const key = lines[lines.length - 1];
    expect(key).toMatch(/^ocg_\w{50}$/);
    const check = await fetch(`${cm.url}/auth/validate-api-key`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: key }) });
    expect(await check.json()).toMatchObject({ valid: true, user: { email: 'ada@example.com', name: 'Ada' } });
  });

  it('prints the whole answer with --json, taking the gateway and key from the environment', async () => {
    process.env.OCG_GATEWAY_URL = cm.url;
    process.env.OCG_API_KEY = adminKey;
    await run('--email', 'json@example.com', '--name', 'J', '--password', 'correct horse battery', '--json');
    const answer = JSON.parse(out);
    expect(answer.user.email).toBe('json@example.com');
    expect(answer.apiKey.key).toMatch(/^ocg_/);
    const login = await fetch(`${cm.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'json@example.com', password: 'correct horse battery' }) });
    expect(login.status).toBe(200);
  });

  it('names each field the gateway refused', async () => {
    await run('--email', 'not-an-email', '--name', 'x', '--password', 'short', '--gateway', cm.url, '--api-key', adminKey);
    expect(process.exitCode).toBe(1);
    expect(err).toMatch(/^the gateway refused the user \(400\):\n/);
    expect(err).toContain('  /email: ');
    expect(err).toContain('  /password: ');
  });

  it('says the key was refused (401) for an unknown key', async () => {
    await run('--email', 'x@example.com', '--name', 'x', '--gateway', cm.url, '--api-key', generateApiKey());
    expect(err).toMatch(/^the gateway refused the API key \(401\): The API key is not valid/);
    expect(process.exitCode).toBe(1);
  });

  it('says the key may not create users (403) for a user\'s key', async () => {
    await run('--email', 'u@example.com', '--name', 'u', '--gateway', cm.url, '--api-key', adminKey, '--json');
    const userKey = JSON.parse(out).apiKey.key;
    await run('--email', 'v@example.com', '--name', 'v', '--gateway', cm.url, '--api-key', userKey);
    expect(err).toMatch(/^the API key may not create users \(403\): .*users:manage/);
  });

  it('says clearly when the gateway is not answering', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await run('--email', 'x@example.com', '--name', 'x', '--gateway', closed, '--api-key', adminKey);
    expect(err).toBe(`the gateway at ${closed} is not answering (ECONNREFUSED); is the stack running? (--gateway or OCG_GATEWAY_URL)\n`);
    expect(process.exitCode).toBe(1);
  });

  it('asks for an API key before calling anything', async () => {
    await run('--email', 'x@example.com', '--name', 'x', '--gateway', cm.url);
    expect(err).toBe('an operator API key is required: pass --api-key or set OCG_API_KEY\n');
  });

  it('requires --email and --name', async () => {
    await expect(run('--name', 'x')).rejects.toThrow(/required option '--email <email>'/);
  });
});
