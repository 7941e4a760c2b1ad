/** The installed command: bin/ocg.js run by node from another directory, as `npm link` or `npx ocg` would. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { freePort } from '@ocg/testing';

const BIN = resolve(__dirname, '../bin/ocg.js');
const fixture = resolve(__dirname, 'fixtures/nginx.json');

function ocgBin(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  return ocgBinWith(process.execPath, ...args);
}

function ocgBinWith(node: string, ...args: string[]): Promise<{ out: string; err: string; code: number }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OCG_') && name !== 'TSX_TSCONFIG_PATH'));
  return new Promise((done) => {
    execFile(node, [BIN, ...args], { cwd: tmpdir(), env, timeout: 30_000 }, (error, out, err) => {
      done({ out, err, code: error ? Number(error.code ?? 1) : 0 });
    });
  });
}

describe('bin/ocg.js', () => {
  it('says so and exits 1 when a command ends without an answer, instead of exiting 0 without a word', async () => {
    const env = { ...process.env, TSX_TSCONFIG_PATH: resolve(__dirname, '../../../tsconfig.json') };
    const run = await new Promise<{ err: string; code: number }>((done) => {
      execFile(process.execPath, [require.resolve('tsx/cli'), resolve(__dirname, 'fixtures/unanswered.ts')], { env, timeout: 30_000 }, (error, _out, err) =>
        done({ err, code: error ? Number(error.code ?? 1) : 0 }),
      );
    });
    expect(run).toEqual({ code: 1, err: 'ocg: the command ended before it had an answer; it may not have taken effect (check, e.g. with ocg job get)\n' });
  });

  it('runs the TypeScript sources from any directory and lists the commands', async () => {
    const run = await ocgBin('--help');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^Usage: ocg \[options\] \[command\]/);
    for (const command of ['job', 'keys', 'sign', 'admin']) expect(run.out).toMatch(new RegExp(`\n  ${command} `));
  });

  it('runs on Node 24, the version the project pins', async () => {
    const run = await ocgBin('--version');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^ocg \d+\.\d+\.\d+ \(node v24\.\d+\.\d+\)\n$/);
  });

  // The machine's own Node (what `npm link` puts on the PATH) may be older: the bin runs again under the pinned one.
  const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find((file) => existsSync(file) && file !== process.execPath);
  (systemNode ? it : it.skip)(`runs on Node 24 when started by the machine's own ${systemNode ?? 'node'}`, async () => {
    const run = await ocgBinWith(systemNode!, '--version');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/\(node v24\.\d+\.\d+\)\n$/);
  });

  it('prints JSON only on stdout with --json', async () => {
    const run = await ocgBin('job', 'validate', '--file', fixture, '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual({ file: fixture, valid: true, errors: [], warnings: [] });
  });

  it('exits 1 with the reason on stderr and nothing on stdout when the gateway cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await ocgBin('job', 'list', '--json', '--gateway', closed, '--api-key', 'ocg_x');
    expect(run).toMatchObject({ code: 1, out: '' });
    expect(run.err).toMatch(new RegExp(`^ocg: cannot reach the gateway at ${closed}: ECONNREFUSED\n`));
  });

  it('exits 1 on a usage error, naming the missing option', async () => {
    const run = await ocgBin('job', 'post', '--file', fixture);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/required option '--market <market>' not specified/);
  });
});
