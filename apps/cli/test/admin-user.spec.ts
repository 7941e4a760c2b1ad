import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { generateApiKey } from '@ocg/auth';
import { freePort, testDatabase, testRedis, waitFor, type TestDatabase } from '@ocg/testing';
import { ocg, type Run } from './support/cli';

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
  };
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(root, 'apps/client-manager/src/main.ts')], { cwd: root, env, stdio: 'inherit' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.ok, { timeoutMs: 60_000, what: 'client-manager /readyz' });
  return { url, child, db };
}

describe('admin user create', () => {
  const adminKey = generateApiKey();
  let cm: Awaited<ReturnType<typeof startClientManager>>;

  beforeAll(async () => (cm = await startClientManager(adminKey)), 90_000);
  afterAll(async () => {
    if (!cm) return;
    const exited = new Promise((r) => cm.child.once('exit', r));
    cm.child.kill('SIGTERM');
    await exited;
    await cm.db.drop();
  });
  afterEach(() => {
    delete process.env.OCG_GATEWAY_URL;
    delete process.env.OCG_API_KEY;
  });

  const run = (...args: string[]): Promise<Run> => ocg('admin', 'user', 'create', ...args);

  it('creates the user and prints the first API key, which then works', async () => {
    const { out, code } = await run('--email', 'ada@example.com', '--name', 'Ada', '--gateway', cm.url, '--api-key', adminKey);
    expect(code).toBe(0);
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
    const { out } = await run('--email', 'json@example.com', '--name', 'J', '--password', 'correct horse battery', '--json');
    const answer = JSON.parse(out);
    expect(answer.user.email).toBe('json@example.com');
    expect(answer.apiKey.key).toMatch(/^ocg_/);
    const login = await fetch(`${cm.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'json@example.com', password: 'correct horse battery' }),
    });
    expect(login.status).toBe(200);
  });

  it('names each field the gateway refused', async () => {
    const { err, code } = await run('--email', 'not-an-email', '--name', 'x', '--password', 'short', '--gateway', cm.url, '--api-key', adminKey);
    expect(code).toBe(1);
    expect(err).toMatch(/^ocg: ValidationError \(400\): .*\n/);
    expect(err).toContain('\n  /email: ');
    expect(err).toContain('\n  /password: ');
  });

  it('says the key was refused (401) for an unknown key', async () => {
    const { err, code } = await run('--email', 'x@example.com', '--name', 'x', '--gateway', cm.url, '--api-key', generateApiKey());
    expect(err).toMatch(/^ocg: the gateway refused the API key \(401\): The API key is not valid/);
    expect(code).toBe(1);
  });

  it("says the key may not create users (403) for a user's key", async () => {
    const { out } = await run('--email', 'u@example.com', '--name', 'u', '--gateway', cm.url, '--api-key', adminKey, '--json');
    const userKey = JSON.parse(out).apiKey.key;
    const { err } = await run('--email', 'v@example.com', '--name', 'v', '--gateway', cm.url, '--api-key', userKey);
    expect(err).toMatch(/^ocg: the API key may not do this \(403\): .*users:manage/);
  });

  it('says clearly when the gateway cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const { err, code } = await run('--email', 'x@example.com', '--name', 'x', '--gateway', closed, '--api-key', adminKey);
    expect(err).toMatch(new RegExp(`^ocg: cannot reach the gateway at ${closed}: ECONNREFUSED\\n`));
    expect(code).toBe(1);
  });

  it('asks for an API key before calling anything', async () => {
    const { err } = await run('--email', 'x@example.com', '--name', 'x', '--gateway', cm.url);
    expect(err).toBe('ocg: no API key: pass --api-key or set OCG_API_KEY\n');
  });

  it('requires --email and --name', async () => {
    const { err, code } = await run('--name', 'x');
    expect(err).toMatch(/required option '--email <email>'/);
    expect(code).toBe(1);
  });
});
