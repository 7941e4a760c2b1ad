// Test-environment wrapper: `tsx tools/testenv/run.ts [--no-docker] -- <command...>`.
// Starts what the tests need and is not given (Postgres, Redis, dockerd), runs
// the command with TEST_DATABASE_URL / TEST_REDIS_URL set, stops what it
// started, and exits with the command's exit code.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDocker, processAlive, startPostgresServer, startRedisServer } from '../../libs/testing/src/index';
import { requireSupportedNode } from '../node-version';

requireSupportedNode('testenv');

const ROOT = path.resolve(__dirname, '..', '..');
// Per-run names (pid suffix): several runs in one checkout must not wipe each other's data.
const WORK = path.join(ROOT, 'tmp', 'testenv');
const USAGE = 'usage: tsx tools/testenv/run.ts [--no-docker] -- <command...>';

type Cleanup = { name: string; run: () => Promise<void> };

const say = (msg: string): void => {
  process.stderr.write(`testenv: ${msg}\n`);
};
const since = (t0: number) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

function parseArgs(argv: string[]): { docker: boolean; command: string[] } {
  const dash = argv.indexOf('--');
  const flags = dash < 0 ? [] : argv.slice(0, dash);
  const command = dash < 0 ? argv : argv.slice(dash + 1);
  const unknown = flags.filter((f) => f !== '--no-docker');
  if (unknown.length > 0 || command.length === 0) {
    say(unknown.length ? `unknown option ${unknown[0]}\n${USAGE}` : USAGE);
    process.exit(2);
  }
  return { docker: !flags.includes('--no-docker'), command };
}

/** Deletes data and logs of earlier runs whose runner is gone (killed runs included). */
function sweepStaleRuns(): void {
  fs.mkdirSync(WORK, { recursive: true });
  for (const entry of fs.readdirSync(WORK)) {
    const pid = /^(?:pg|redis)-(\d+)(?:\.log)?$/.exec(entry)?.[1];
    if (pid && !processAlive(Number(pid))) fs.rmSync(path.join(WORK, entry), { recursive: true, force: true });
  }
}

async function startPostgres(env: NodeJS.ProcessEnv, cleanups: Cleanup[]): Promise<void> {
  if (env.TEST_DATABASE_URL) return say('postgres: using TEST_DATABASE_URL');
  const t0 = Date.now();
  const dataDir = path.join(WORK, `pg-${process.pid}`);
  const pg = await startPostgresServer({ dataDir, wipe: true, logFile: `${dataDir}.log`, removeWhenOrphaned: [dataDir] });
  cleanups.push({ name: 'postgres', run: async () => (await pg.stop(), fs.rmSync(dataDir, { recursive: true, force: true })) });
  env.TEST_DATABASE_URL = pg.url;
  say(`postgres ready on ${pg.host}:${pg.port} (${since(t0)})`);
}

async function startRedis(env: NodeJS.ProcessEnv, cleanups: Cleanup[]): Promise<void> {
  if (env.TEST_REDIS_URL) return say('redis: using TEST_REDIS_URL');
  const t0 = Date.now();
  // Many logical databases: testRedis() hands each test its own.
  const redis = await startRedisServer({ databases: 4096, logFile: path.join(WORK, `redis-${process.pid}.log`) });
  cleanups.push({ name: 'redis', run: redis.stop });
  env.TEST_REDIS_URL = redis.url;
  say(`redis ready on ${redis.host}:${redis.port} (${since(t0)})`);
}

async function startDocker(cleanups: Cleanup[]): Promise<void> {
  const t0 = Date.now();
  const docker = await ensureDocker({ logFile: path.join(WORK, 'dockerd.log'), timeoutMs: 60_000 });
  // Unnamed when not started here: release() then only unregisters this run.
  cleanups.push({ name: docker.started ? 'dockerd' : '', run: docker.release });
  if (!docker.available) say(`WARNING: ${docker.reason}; tests that need Docker will fail`);
  else say(docker.started ? `docker ready (started dockerd, ${since(t0)})` : 'docker: already running');
}

async function cleanUp(cleanups: Cleanup[]): Promise<void> {
  const results = await Promise.allSettled(cleanups.splice(0).map((c) => c.run()));
  results.forEach((r) => r.status === 'rejected' && say(`cleanup failed: ${(r.reason as Error).message}`));
}

function runCommand(command: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env });
    // A terminal Ctrl-C reaches the command directly; kill(1) of the runner is passed on.
    const forward = (sig: NodeJS.Signals) => child.exitCode === null && child.kill(sig);
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, forward);
    child.once('error', (err) => {
      say(`cannot run ${command[0]}: ${err.message}`);
      resolve(127);
    });
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
  });
}

async function main(): Promise<void> {
  const { docker, command } = parseArgs(process.argv.slice(2));
  const env = { ...process.env };
  const cleanups: Cleanup[] = [];
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals) => (interrupted = sig);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);
  sweepStaleRuns();
  const steps = [startPostgres(env, cleanups), startRedis(env, cleanups), docker ? startDocker(cleanups) : Promise.resolve()];
  const failed = (await Promise.allSettled(steps)).filter((r) => r.status === 'rejected');
  failed.forEach((r) => say(`${(r.reason as Error).message}`));
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(sig, onSignal);
  let code = failed.length > 0 ? 1 : 128 + (interrupted ? os.constants.signals[interrupted] : 0);
  if (failed.length === 0 && !interrupted) code = await runCommand(command, env);
  const names = cleanups.map((c) => c.name).filter(Boolean);
  await cleanUp(cleanups);
  if (names.length > 0) say(`stopped ${names.join(', ')}`);
  process.exit(code);
}

main().catch((err: Error) => {
  say(`failed: ${err.stack ?? err.message}`);
  process.exit(1);
});
