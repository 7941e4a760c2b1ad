/**
 * Runs every project's jest suite in lanes: each lane one `nx run-many -t
 * test` over its projects, one project at a time, the lanes side by side.
 * Most of the suites' time is waiting (a store stopped for 90 s, a job's
 * one-minute duration, a container's health check), not work, so a second
 * lane nearly halves the run on two cores. The suites were written to share
 * a machine (a database and a Redis database of their own, unique names,
 * free ports, cleanup of their own objects only), so lanes need nothing more.
 *
 *   tsx tools/test-lanes.ts
 *   TEST_LANES=1: every project in one lane (the old serial run), as on a one-core machine
 *
 * The exit code is the first failing lane's, after every lane has ended.
 */
import { spawn, execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

const root = resolve(__dirname, '..');

/**
 * The second lane: the longest suites (e2e's stacks and faults, the CLI's
 * jobs, the gateway's data plane), about half of the whole run's time, so
 * both lanes end near the same time. Every other project, new ones included,
 * runs in the first lane.
 */
const SECOND_LANE = ['e2e', 'gateway', 'cli'];

/** The projects in each lane: `count` lanes (1 or 2). */
function lanes(projects: string[], count: number): string[][] {
  if (count <= 1) return [projects];
  const second = projects.filter((p) => SECOND_LANE.includes(p));
  const first = projects.filter((p) => !SECOND_LANE.includes(p));
  return [first, second].filter((lane) => lane.length > 0);
}

function laneCount(): number {
  const asked = process.env.TEST_LANES;
  if (asked !== undefined && asked !== '') {
    const n = Number(asked);
    if (!Number.isInteger(n) || n < 1) throw new Error(`TEST_LANES must be a whole number of at least 1, not "${asked}"`);
    return Math.min(n, 2);
  }
  return availableParallelism() >= 2 ? 2 : 1;
}

function projectsWithTests(): string[] {
  const out = execFileSync('npx', ['nx', 'show', 'projects', '--with-target', 'test', '--json'], { cwd: root, encoding: 'utf8' });
  return (JSON.parse(out) as string[]).sort();
}

function runLane(projects: string[], index: number): Promise<number> {
  console.log(`test lane ${index + 1}: ${projects.join(', ')}`);
  const child = spawn('npx', ['nx', 'run-many', '-t', 'test', '-p', projects.join(','), '--parallel=1', '--outputStyle=stream'], { cwd: root, stdio: 'inherit' });
  return new Promise((done) => {
    child.once('error', (err) => {
      console.error(`test lane ${index + 1}: ${err.message}`);
      done(1);
    });
    child.once('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const plan = lanes(projectsWithTests(), laneCount());
  const codes = await Promise.all(plan.map(runLane));
  const failing = codes.find((code) => code !== 0);
  console.log(`test lanes: ${plan.length} in ${Math.round((Date.now() - started) / 1000)} s${failing === undefined ? '' : `; lane ${codes.indexOf(failing) + 1} failed`}`);
  process.exitCode = failing ?? 0;
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
