import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerJobValidate } from '../src/commands/job-validate';

let dir: string;
let out: string;
let err: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'job-validate-'));
  out = '';
  err = '';
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
});

afterEach(() => {
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
  process.exitCode = undefined;
});

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

async function run(...args: string[]): Promise<void> {
  const job = new Command('job').exitOverride().configureOutput({ writeErr: (text) => (err += text), writeOut: (text) => (out += text) });
  registerJobValidate(job);
  await job.parseAsync(['validate', ...args], { from: 'user' });
}

const op = (id: string, execution?: object) => ({ type: 'container/run', id, args: { image: 'ubuntu' }, ...(execution ? { execution } : {}) });
const definition = (ops: object[]) => ({ version: '0.1', type: 'container', ops });

describe('job validate', () => {
  it('reports a valid definition and exits 0', async () => {
    const path = file('ok.json', definition([op('a')]));
    await run('--file', path);
    expect(out).toBe(`${path}: valid (0 errors, 0 warnings)\n`);
    expect(process.exitCode).toBeUndefined();
  });

  it('prints each error and warning with its path, a summary, and exits 1', async () => {
    const path = file('bad.json', definition([op('a', { group: 'g' }), { ...op('b', { group: 'g', depends_on: ['vlm'] }), args: { image: 'x', depends: ['a'] } }]));
    await run('--file', path);
    expect(out.split('\n')).toEqual([
      'error   /ops/1/execution/depends_on/0: unknown op id "vlm"',
      'warning /ops/1/args/depends: "args.depends" is a deprecated alias of "execution.depends_on"; move these ids there',
      `${path}: invalid (1 error, 1 warning)`,
      '',
    ]);
    expect(process.exitCode).toBe(1);
  });

  it('names the root when the whole document is wrong', async () => {
    await run('--file', file('root.json', '[]'));
    expect(out).toContain('error   (root): must be an object\n');
  });

  it('prints the result as JSON with --json', async () => {
    const path = file('bad.json', definition([]));
    await run('--file', path, '--json');
    expect(JSON.parse(out)).toEqual({
      file: path,
      valid: false,
      errors: [{ path: '/ops', message: 'must hold at least one op (or logistics.send for a confidential job)' }],
      warnings: [],
    });
    expect(process.exitCode).toBe(1);
  });

  it('says clearly when the file cannot be read', async () => {
    const path = join(dir, 'missing.json');
    await run('--file', path);
    expect(err).toBe(`cannot read ${path}: no such file\n`);
    expect(out).toBe('');
    expect(process.exitCode).toBe(1);
  });

  it('gives line and column of invalid JSON', async () => {
    const path = file('broken.json', '{\n  "version": "0.1",\n  "ops": [}\n}');
    await run('--file', path);
    expect(err).toBe(`invalid JSON in ${path} at line 3, column 11: Unexpected token '}'\n`);
    expect(process.exitCode).toBe(1);
  });

  it('gives line and column of truncated JSON, and reports it as JSON with --json', async () => {
    const path = file('cut.json', '{\n  "version": "0.1"');
    // V8 names a position here; the scanner below covers the messages where it does not.
    await run('--file', path, '--json');
    expect(JSON.parse(out).errors).toEqual([{ path: '', message: `invalid JSON in ${path} at line 2, column 19: Expected ',' or '}' after property value` }]);
    expect(process.exitCode).toBe(1);
  });

  it('locates the end of input when V8 gives no position', async () => {
    const path = file('end.json', '{\n  "ops": [');
    await run('--file', path);
    expect(err).toBe(`invalid JSON in ${path} at line 2, column 11: Unexpected end of JSON input\n`);
  });

  it('requires --file', async () => {
    await expect(run()).rejects.toThrow(/required option '--file <path>' not specified/);
  });
});
