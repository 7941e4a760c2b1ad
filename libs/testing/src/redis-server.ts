import fsp from 'node:fs/promises';
import net from 'node:net';
import { findExecutable, spawnKept, type KeptProcess } from './process';
import { freePort } from './ports';
import { sleep } from './wait';

export interface RedisServerOptions {
  /** Default: a free port, retried if another process takes it first. */
  port?: number;
  /** Persist (AOF) in this directory. Default: no persistence at all. */
  dataDir?: string;
  logFile?: string;
  /** Number of logical databases; the test runner asks for many so each test gets its own. */
  databases?: number;
  password?: string;
  /** Paths removed if the owning process dies without stopping the server. */
  removeWhenOrphaned?: string[];
  startTimeoutMs?: number;
}

export interface RedisServer {
  url: string;
  host: string;
  port: number;
  /** The keeper's pid; the server stops when it is signalled. */
  pid: number;
  stop(): Promise<void>;
  exited: Promise<number | null>;
  output(): string;
}

const HOST = '127.0.0.1';
export const REDIS_INSTALL_HINT = 'redis-server not found on PATH: install it with `apt-get install -y redis-server`';

/** Starts the system redis-server on 127.0.0.1 under a keeper. */
export async function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServer> {
  const command = findExecutable('redis-server');
  if (!command) throw new Error(REDIS_INSTALL_HINT);
  if (opts.dataDir) await fsp.mkdir(opts.dataDir, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    const port = opts.port ?? (await freePort());
    const auth = opts.password ? `:${encodeURIComponent(opts.password)}@` : '';
    const proc = spawnKept({
      command,
      args: redisArgs(port, opts),
      stopSignal: 'SIGTERM',
      logFile: opts.logFile,
      removeWhenOrphaned: opts.removeWhenOrphaned,
    });
    try {
      await waitUntilPong(port, opts.password, proc, opts.startTimeoutMs ?? 15_000);
      const url = `redis://${auth}${HOST}:${port}`;
      return { url, host: HOST, port, pid: proc.pid, stop: proc.stop, exited: proc.exited, output: proc.output };
    } catch (err) {
      await proc.stop();
      const portTaken = /Address already in use/.test(proc.output());
      if (!portTaken || opts.port !== undefined || attempt >= 3) throw err;
    }
  }
}

function redisArgs(port: number, opts: RedisServerOptions): string[] {
  const args = ['--port', String(port), '--bind', HOST, '--daemonize', 'no', '--loglevel', 'warning'];
  args.push('--databases', String(opts.databases ?? 16));
  if (opts.password) args.push('--requirepass', opts.password);
  if (opts.dataDir) args.push('--dir', opts.dataDir, '--appendonly', 'yes', '--save', '60 1');
  else args.push('--save', '', '--appendonly', 'no');
  return args;
}

async function waitUntilPong(port: number, password: string | undefined, proc: KeptProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!proc.running()) throw new Error(`redis-server exited during startup:\n${proc.output().trim()}`);
    if (await pongs(port, password)) return;
    await sleep(25);
  }
  throw new Error(`redis-server did not answer PING within ${timeoutMs} ms:\n${proc.output().trim()}`);
}

/** A raw RESP PING, so readiness does not depend on a client's retry behaviour. */
function pongs(port: number, password?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: HOST });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write((password ? resp('AUTH', password) : '') + resp('PING')));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('+PONG')) done(true);
      else if (/(^|\n)-/.test(reply)) done(false); // an error reply: LOADING, NOAUTH...
    });
  });
}

function resp(...parts: string[]): string {
  return `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`;
}
