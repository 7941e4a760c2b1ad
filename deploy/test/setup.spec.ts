import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// A clean clone must install with `npm ci` (tools/setup.sh, .ci/run) and print no error.
const root = path.resolve(__dirname, '../..');
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { optionalDependencies?: Record<string, string> }> };

describe('a clean clone installs first time', () => {
  it('package-lock.json is in sync with package.json (npm ci refuses otherwise)', () => {
    // --dry-run checks the lock against package.json without touching node_modules.
    const run = () =>
      execFileSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    expect(run).not.toThrow();
  });

  it("the lock lists this machine's optional platform binaries, so npm ci installs them", () => {
    const platform = `${process.platform}-${process.arch}`;
    const missing: string[] = [];
    for (const [where, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (name.includes(platform) && !Object.keys(lock.packages).some((p) => p.endsWith(`node_modules/${name}`))) missing.push(`${where} -> ${name}`);
      }
    }
    expect(missing).toEqual([]);
    expect(Object.keys(lock.packages).some((p) => p.includes(platform))).toBe(true);
  });
});
