/** The local stack's console and restarts: events on the console, whole logs in files, a dead process started again. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { isConsoleEvent, restartDelay, startTsProcess, supervise, waitFor, type ManagedProcess, type RestartPolicy } from '../src';

const SERVICE = join(__dirname, 'fixtures/service-output.ts');

describe('isConsoleEvent', () => {
  const line = (record: object) => JSON.stringify({ time: '2026-01-01T00:00:00.000Z', service: 'gateway', ...record });

  it('keeps events, warnings and errors', () => {
    expect(isConsoleEvent(line({ level: 'info', msg: 'gateway listening', url: 'https://127.0.0.1:1' }))).toBe(true);
    expect(isConsoleEvent(line({ level: 'info', msg: 'endpoint j-8080 ONLINE', job: 'j' }))).toBe(true);
    expect(isConsoleEvent(line({ level: 'warn', msg: 'upstream slow' }))).toBe(true);
    expect(isConsoleEvent(line({ level: 50, msg: 'sync failed' }))).toBe(true);
  });

  it("drops request lines below error: the gateway's and every service's, 4xx included", () => {
    expect(isConsoleEvent(line({ level: 'info', msg: 'request', method: 'GET', path: '/readyz', status: 200, ms: 1.2 }))).toBe(false);
    expect(isConsoleEvent(line({ level: 'info', msg: 'request completed', method: 'POST', url: '/node-jobs/sync', status: 200, ms: 4 }))).toBe(false);
    expect(isConsoleEvent(line({ level: 'warn', msg: 'request completed', method: 'GET', url: '/jobs/x', status: 404, ms: 3 }))).toBe(false);
    expect(isConsoleEvent(line({ level: 'error', msg: 'request failed', method: 'GET', url: '/jobs', status: 500, ms: 3 }))).toBe(true);
  });

  it('drops migration bookkeeping but not a database warning', () => {
    expect(isConsoleEvent(line({ level: 'info', component: 'db', msg: 'Migration Jobs1 has been executed successfully.' }))).toBe(false);
    expect(isConsoleEvent(line({ level: 'warn', component: 'db', msg: 'query is slow' }))).toBe(true);
  });

  it('keeps what is not a JSON object: a crash prints its stack that way', () => {
    expect(isConsoleEvent('TypeError: x is not a function')).toBe(true);
    expect(isConsoleEvent('    at main (/app/main.ts:1:1)')).toBe(true);
    expect(isConsoleEvent('42')).toBe(true);
  });
});

describe('a stack process with a log file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ocg-stack-console-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes every line to the file and only the events to the console', async () => {
    const shown: string[] = [];
    const file = join(dir, 'logs', 'client-manager.log');
    const proc = startTsProcess('client-manager', SERVICE, {}, 0, (l) => shown.push(l), { logFile: file, show: isConsoleEvent });
    await proc.exited;
    // The file is written a moment after the lines are read.
    const written = await waitFor(
      () => {
        const lines = readFileSync(file, 'utf8').trim().split('\n');
        return lines.length === 5 ? lines : undefined;
      },
      { timeoutMs: 10_000, what: 'five lines in the log file' },
    );
    expect(written.filter((l) => l.includes('request completed'))).toHaveLength(1);
    expect(shown.map((l) => stripVTControlCharacters(l))).toEqual([
      'client-manager    | info client-manager listening {"url":"http://127.0.0.1:1"}',
      'client-manager    | error request failed {"method":"POST","url":"/jobs","status":500,"ms":9}',
      'client-manager    | Error: not JSON',
    ]);
  });
});

describe('supervise', () => {
  const policy: RestartPolicy = { firstDelayMs: 20, maxDelayMs: 50, stableAfterMs: 60_000, maxRestarts: 3 };
  const started: ManagedProcess[] = [];
  const start = (env: Record<string, string>) => () => {
    const proc = startTsProcess('dies', SERVICE, env, 0, () => undefined);
    started.push(proc);
    return proc;
  };
  afterEach(async () => {
    for (const proc of started.splice(0)) await proc.stop();
  });

  it('doubles the delay up to its cap', () => {
    expect([1, 2, 3, 4].map((n) => restartDelay(policy, n))).toEqual([20, 40, 50, 50]);
  });

  it('restarts a process that exits, with growing delays, and gives up after the restarts in a row', async () => {
    const steps: string[] = [];
    const run = start({ EXIT_CODE: '3' });
    const gaveUp = new Promise<string>((resolve) => supervise(run(), { name: 'dies', policy, start: run, onStep: (t) => steps.push(t), onGiveUp: resolve }));
    expect(await gaveUp).toBe('dies exited (code 3) after 3 restarts in a row');
    expect(started).toHaveLength(4);
    expect(steps).toEqual([
      'dies exited unexpectedly (code 3); restarting it in 0.02 s (restart 1 of at most 3 in a row)',
      'dies exited unexpectedly (code 3); restarting it in 0.04 s (restart 2 of at most 3 in a row)',
      'dies exited unexpectedly (code 3); restarting it in 0.05 s (restart 3 of at most 3 in a row)',
    ]);
  }, 60_000);

  it('starts from the first delay again once the process stayed up', async () => {
    const steps: string[] = [];
    // Each run stays up longer than stableAfterMs: every exit is the first in a row.
    const run = start({ EXIT_CODE: '1', EXIT_AFTER_MS: '300' });
    const supervisor = supervise(run(), { name: 'dies', policy: { ...policy, stableAfterMs: 200 }, start: run, onStep: (t) => steps.push(t), onGiveUp: () => undefined });
    while (started.length < 5) await new Promise((r) => setTimeout(r, 50));
    supervisor.stop();
    expect(steps.slice(0, 4)).toEqual(Array(4).fill('dies exited unexpectedly (code 1); restarting it in 0.02 s (restart 1 of at most 3 in a row)'));
  }, 60_000);

  it('starts nothing more once stopped', async () => {
    const run = start({ EXIT_CODE: '1', EXIT_AFTER_MS: '100' });
    const first = run();
    supervise(first, { name: 'dies', policy, start: run, onStep: () => undefined, onGiveUp: () => undefined }).stop();
    await first.exited;
    await new Promise((r) => setTimeout(r, 200));
    expect(started).toHaveLength(1);
  });
});
