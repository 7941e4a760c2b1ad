// CI's mutation step: mutation-tests only the source files of covered projects that
// differ from the merge base with origin/main (or main), and fails below the
// threshold. Nothing changed (a clean clone of main): it says so and exits 0 at once.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MUTATED_PROJECTS } from './projects';

const say = (msg: string): void => console.log(`mutate:changed: ${msg}`);
const git = (...args: string[]): string => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

function mergeBase(): string | undefined {
  for (const ref of ['origin/main', 'main']) {
    try {
      git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
      return git('merge-base', 'HEAD', ref);
    } catch {
      // no such ref here: try the next
    }
  }
  return undefined;
}

/** Mutable sources: TypeScript under src/, not the re-exporting index files. */
export function mutableFiles(changed: string[], root: string): string[] {
  return changed.filter((f) => f.startsWith(`${root}/src/`) && f.endsWith('.ts') && !f.endsWith('/index.ts') && !f.endsWith('.d.ts'));
}

/** The files the project's Stryker config would mutate for these changed files (an app names the files in its scope). */
async function inScope(root: string, files: string[]): Promise<string[]> {
  process.env.STRYKER_MUTATE = files.join(',');
  const url = pathToFileURL(path.resolve(root, 'stryker.config.mjs')).href;
  const config = ((await import(url)) as { default: { mutate: string[] } }).default;
  delete process.env.STRYKER_MUTATE;
  return config.mutate;
}

async function main(): Promise<void> {
  const base = mergeBase();
  if (base === undefined) return say('no origin/main or main to compare with; nothing to do (full run: npm run mutate)');
  // Committed and uncommitted changes since the merge base; deleted files drop out.
  const changed = git('diff', '--name-only', base)
    .split('\n')
    .filter((f) => f !== '' && fs.existsSync(f));
  let failed = false;
  for (const { name, root } of MUTATED_PROJECTS) {
    const files = await inScope(root, mutableFiles(changed, root));
    if (files.length === 0) {
      say(`${name}: no changes to mutation-tested sources since ${base.slice(0, 12)}`);
      continue;
    }
    say(`${name}: ${files.join(', ')}`);
    const run = spawnSync('tsx', ['tools/testenv/run.ts', '--no-docker', '--', 'stryker', 'run', `${root}/stryker.config.mjs`], {
      stdio: 'inherit',
      env: { ...process.env, STRYKER_MUTATE: files.join(',') },
    });
    if (run.status !== 0) {
      say(`${name}: FAILED (mutation score below the threshold or a test run error; see above)`);
      failed = true;
    }
  }
  process.exitCode = failed ? 1 : 0;
}

if (require.main === module) void main();
