/**
 * A private registry for authenticated-pull tests: Debian's docker-registry
 * (distribution) on 127.0.0.1 with a bcrypt htpasswd. Docker trusts loopback
 * registries over plain HTTP, so no daemon setting is needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { run } from './exec';
import { freePort } from '../ports';

const REGISTRY_BINARY = '/usr/bin/docker-registry';

export interface TestRegistry {
  /** `127.0.0.1:<port>`, the registry part of image references. */
  host: string;
  username: string;
  password: string;
  /** Pushes a local image as `<host>/<repository>` and removes that local tag; returns the reference. */
  push(localRef: string, repository: string): Promise<string>;
  /** Removes local copies of the pushed references (a test may have pulled them). */
  removePushed(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRegistry(opts: { username?: string; password?: string } = {}): Promise<TestRegistry> {
  if (!fs.existsSync(REGISTRY_BINARY)) throw new Error('docker-registry not found: install it with `apt-get install -y docker-registry`');
  const username = opts.username ?? 'ocg-test';
  const password = opts.password ?? randomBytes(12).toString('hex');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-registry-'));
  const port = await freePort();
  const htpasswd = await run('htpasswd', ['-Bbn', username, password]);
  fs.writeFileSync(path.join(dir, 'htpasswd'), htpasswd);
  fs.writeFileSync(path.join(dir, 'config.yml'), registryConfig(dir, port));
  const child = spawn(REGISTRY_BINARY, ['serve', path.join(dir, 'config.yml')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const host = `127.0.0.1:${port}`;
  try {
    await waitForRegistry(host, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${stderr}`);
  }
  const auth = { username, password, serveraddress: host };
  const pushed: string[] = [];
  return {
    host,
    username,
    password,
    push: async (localRef, repository) => {
      const ref = await pushImage(localRef, `${host}/${repository}`, auth);
      pushed.push(ref);
      return ref;
    },
    removePushed: async () => {
      const docker = new Docker({ agent: new http.Agent({ keepAlive: false }) } as Docker.DockerOptions);
      await Promise.all(
        pushed.map((ref) =>
          docker
            .getImage(ref)
            .remove({ force: true })
            .catch(() => undefined),
        ),
      );
    },
    stop: () => stopRegistry(child, dir),
  };
}

function registryConfig(dir: string, port: number): string {
  return [
    'version: 0.1',
    'log: { level: error }',
    `storage: { filesystem: { rootdirectory: ${path.join(dir, 'data')} } }`,
    `http: { addr: 127.0.0.1:${port}, secret: ${randomBytes(16).toString('hex')} }`,
    `auth: { htpasswd: { realm: ocg-test, path: ${path.join(dir, 'htpasswd')} } }`,
    '',
  ].join('\n');
}

async function pushImage(localRef: string, remote: string, auth: Record<string, string>): Promise<string> {
  // No keep-alive: an idle pooled socket would keep a test process from exiting.
  const docker = new Docker({ agent: new http.Agent({ keepAlive: false }) } as Docker.DockerOptions);
  const [repo, tag = 'latest'] = remote.split(/:(?=[^:/]+$)/);
  await docker.getImage(localRef).tag({ repo, tag });
  const stream = await docker.getImage(`${repo}:${tag}`).push({ authconfig: auth } as object);
  await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())));
  // Without the local tag, running the reference has to pull it (with credentials).
  await docker.getImage(`${repo}:${tag}`).remove({ noprune: true });
  return `${repo}:${tag}`;
}

/** Answers 401 on /v2/ once it serves (auth is on). */
async function waitForRegistry(host: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with code ${child.exitCode}`);
    if ((await statusOf(`http://${host}/v2/`)) === 401) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`docker-registry did not answer on ${host} within 15 s`);
}

function statusOf(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 1000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

async function stopRegistry(child: ChildProcess, dir: string): Promise<void> {
  child.stderr?.destroy();
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000).unref())]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
