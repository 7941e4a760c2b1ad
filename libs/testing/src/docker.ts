import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { findExecutable, processAlive, spawnKept } from './process';
import { waitFor } from './wait';

export const DOCKER_INSTALL_HINT = 'dockerd not found on PATH: install it with `apt-get install -y docker.io`';
const DEFAULT_SOCKET = '/var/run/docker.sock';

/** Whether a Docker daemon answers /_ping (DOCKER_HOST honoured: unix:// or tcp://). */
export async function dockerAvailable(timeoutMs = 2000): Promise<boolean> {
  const target = dockerTarget();
  return new Promise((resolve) => {
    const req = http.get({ ...target, path: '/_ping', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

function dockerTarget(): http.RequestOptions {
  const host = process.env.DOCKER_HOST;
  if (!host || host.startsWith('unix://')) return { socketPath: host ? host.slice('unix://'.length) : DEFAULT_SOCKET };
  const url = new URL(host.replace(/^tcp:/, 'http:'));
  return { host: url.hostname, port: Number(url.port || 2375) };
}

export interface DockerHandle {
  available: boolean;
  /** True when this call started dockerd. */
  started: boolean;
  /** Why Docker is not available (what to install or start). */
  reason?: string;
  /** Declares this process done with Docker; a dockerd we started stops once no user is left. */
  release(): Promise<void>;
}

export interface EnsureDockerOptions {
  logFile?: string;
  /** Extra dockerd flags, e.g. --data-root for a dev stack's own image store. */
  dockerdArgs?: string[];
  timeoutMs?: number;
  /** Registry of processes using a dockerd we started (one file per pid). */
  usersDir?: string;
}

/**
 * Makes Docker answer, starting dockerd if we are root and it is installed.
 * dockerd is a machine-wide singleton (one socket), so several test runs may
 * share the one we start: each registers its pid, and the dockerd keeper stops
 * it only when none of them is alive, whoever started it.
 */
export async function ensureDocker(opts: EnsureDockerOptions = {}): Promise<DockerHandle> {
  const usersDir = opts.usersDir ?? path.join(os.tmpdir(), 'ocg-dockerd-users');
  fs.mkdirSync(usersDir, { recursive: true });
  fs.writeFileSync(path.join(usersDir, String(process.pid)), '');
  const release = () => releaseDocker(usersDir);
  const unavailable = (reason: string): DockerHandle => ({ available: false, started: false, reason, release });
  if (await dockerAvailable()) return { available: true, started: false, release };
  const host = process.env.DOCKER_HOST;
  if (host && !host.startsWith('unix://')) return unavailable(`Docker at DOCKER_HOST=${host} is not answering`);
  if (process.getuid?.() !== 0) return unavailable(`Docker is not answering on ${DEFAULT_SOCKET}; start it (only root can start dockerd here)`);
  const dockerd = findExecutable('dockerd');
  if (!dockerd) return unavailable(DOCKER_INSTALL_HINT);
  const args = [...(host ? ['-H', host] : []), ...(opts.dockerdArgs ?? [])];
  const proc = spawnKept({ command: dockerd, args, usersDir, logFile: opts.logFile, stopTimeoutMs: 30_000 });
  fs.writeFileSync(`${usersDir}.keeper`, String(proc.pid));
  const timeoutMs = opts.timeoutMs ?? 60_000;
  try {
    await waitFor(() => dockerAvailable(), { timeoutMs, intervalMs: 200, what: 'dockerd to answer' });
  } catch {
    const log = opts.logFile ? `; see ${opts.logFile}` : `:\n${proc.output().trim()}`;
    return { available: false, started: true, reason: `dockerd did not answer within ${timeoutMs / 1000} s${log}`, release };
  }
  // Lost a start race to another run's dockerd: that one serves us (we are registered).
  return { available: true, started: proc.running(), release };
}

async function releaseDocker(usersDir: string): Promise<void> {
  fs.rmSync(path.join(usersDir, String(process.pid)), { force: true });
  if (liveUsers(usersDir) > 0) return;
  const keeper = dockerKeeperPid(usersDir);
  if (keeper === undefined) return;
  process.kill(keeper, 'SIGTERM');
  await waitFor(() => !processAlive(keeper), { timeoutMs: 40_000, what: 'dockerd to stop' });
}

function liveUsers(usersDir: string): number {
  return fs.readdirSync(usersDir).filter((name) => processAlive(Number(name))).length;
}

/** The pid of a live dockerd keeper we started, checked against its command line (pids get reused). */
function dockerKeeperPid(usersDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(`${usersDir}.keeper`, 'utf8'));
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('keeper.js') && cmdline.includes('dockerd') ? pid : undefined;
  } catch {
    return undefined;
  }
}
