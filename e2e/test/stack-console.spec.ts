/**
 * The local stack's console: a line per event, each service's whole log in
 * <data dir>/logs, paths that work with the data directory outside the
 * checkout, and a service that dies started again while the stack keeps
 * serving. Without the demo node (no Docker needed).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fetch as tlsFetch } from 'undici';
import { localHttpsDispatcher, testDatabase, testRedis, waitFor } from '@ocg/testing';
import { ctrlC, lineOf, startStack, type StackProcess } from './support/stack-process';

const root = resolve(__dirname, '../..');
const exec = promisify(execFile);

/** The child of `parent` running `entry` (the stack's children are its services). */
function childRunning(parent: number, entry: string): number | undefined {
  for (const pid of readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(entry)) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

describe('the local stack console', () => {
  let dataDir: string;
  let dropDb: () => Promise<void>;
  let stack: StackProcess;
  let gateway: string;
  const get = (path: string) => tlsFetch(`${gateway}${path}`, { dispatcher: localHttpsDispatcher(join(dataDir, 'tls', 'ca.crt')) });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ocg-e2e-stack-console-'));
    const db = await testDatabase();
    dropDb = db.drop;
    const redis = await testRedis();
    stack = startStack({ STACK_DATA_DIR: dataDir, STACK_FREE_PORTS: '1', STACK_DEMO: '0', DATABASE_URL: db.url, REDIS_URL: redis.url, LOG_LEVEL: 'info' });
    await lineOf(stack, /Ctrl-C stops everything/, 'the stack to print its summary');
    gateway = stack.lines.find((l) => l.includes('Gateway:'))!.match(/https:\/\/\S+/)![0];
  }, 300_000);

  afterAll(async () => {
    if (stack && stack.child.exitCode === null && stack.child.signalCode === null) await ctrlC(stack).catch(() => undefined);
    await dropDb?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints events, not requests; every request line is in the service's log file", async () => {
    for (let i = 0; i < 3; i++) expect((await get('/auth/scopes')).status).toBe(200);
    const file = join(dataDir, 'logs', 'client-manager.log');
    await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').includes('"url":"/auth/scopes"'), { timeoutMs: 10_000, what: 'the request lines in client-manager.log' });
    for (const name of ['client-manager', 'host-manager', 'deployment-manager', 'gateway']) {
      expect(stack.lines.filter((l) => l.startsWith(`stack: ${name} ready at `))).toHaveLength(1);
      expect(existsSync(join(dataDir, 'logs', `${name}.log`))).toBe(true);
    }
    const requestLines = stack.lines.filter((l) => /\| (info|warn) request\b/.test(l));
    expect(requestLines).toEqual([]);
    expect(stack.lines).toContain(`stack: each service logs to ${join(dataDir, 'logs')}/<service>.log; here: events only (LOG_LEVEL=debug shows every line)`);
  });

  it('prints paths that work from the checkout with the data directory outside it', async () => {
    const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as { ADMIN_API_KEY: string };
    const admin = stack.lines.find((l) => l.includes('Admin key:'))!.match(/node -p "(.*)"\)$/)![1];
    expect((await exec(process.execPath, ['-p', admin], { cwd: root })).stdout.trim()).toBe(secrets.ADMIN_API_KEY);
    expect(stack.lines.find((l) => l.includes('Trust the CA:'))).toContain(`--cacert ${join(dataDir, 'tls', 'ca.crt')} `);
    expect(stack.lines).toContain(`stack: created the master key, internal token and admin API key in ${join(dataDir, 'secrets.json')}`);
  });

  it('starts a service that dies again, and the stack keeps serving', async () => {
    const pid = childRunning(stack.child.pid!, 'apps/client-manager/src/main.ts');
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    await lineOf(stack, /^stack: client-manager exited unexpectedly \(signal SIGKILL\); restarting it in 1 s \(restart 1 of at most 5 in a row\)$/, 'the restart line', 30_000);
    await waitFor(() => stack.lines.filter((l) => l.startsWith('stack: client-manager ready at ')).length === 2, { timeoutMs: 90_000, what: 'client-manager ready again' });
    expect((await get('/auth/scopes')).status).toBe(200);
    expect(stack.child.exitCode).toBeNull();
    expect(stack.lines.some((l) => l.includes('stopping the stack'))).toBe(false);
  }, 120_000);

  it('stops cleanly on Ctrl-C after a restart', async () => {
    expect(await ctrlC(stack)).toBe(0);
    expect(stack.lines.at(-1)).toBe('stack: stopped');
    expect(stack.lines.filter((l) => l.includes('did not stop cleanly'))).toEqual([]);
  }, 200_000);
});
