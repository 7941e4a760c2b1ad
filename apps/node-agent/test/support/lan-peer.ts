/**
 * A machine on the node's LAN, for isolation tests: a network namespace on a
 * veth pair with a private /30 (10.213.x.y), serving "lan-peer" over HTTP.
 * Reachable from the host, and from containers through forwarding, unless
 * isolation drops it. Needs root (as the isolation tests do).
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const run = (cmd: string, args: string[]) => exec(cmd, args);

export interface LanPeer {
  address: string;
  port: number;
  /** The host's end of the pair: an address of the host, reached from the peer directly. */
  hostAddress: string;
  /** Runs a shell line inside the peer; its standard output ('' when it fails). */
  sh(line: string): Promise<string>;
  stop(): Promise<void>;
}

/** `defaultRoute`: the peer's other traffic goes through the host (it reaches the host's other addresses). */
export async function startLanPeer(opts: { defaultRoute?: boolean } = {}): Promise<LanPeer> {
  const name = `ocgl${randomBytes(3).toString('hex')}`;
  const [b, c] = [randomBytes(1)[0], (randomBytes(1)[0] & 0x3f) * 4];
  const host = `10.213.${b}.${c + 1}`;
  const peer = `10.213.${b}.${c + 2}`;
  const www = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-lan-peer-'));
  fs.writeFileSync(path.join(www, 'index.html'), 'lan-peer\n');
  await run('ip', ['netns', 'add', name]);
  const steps = [
    ['link', 'add', `${name}a`, 'type', 'veth', 'peer', 'name', `${name}b`],
    ['link', 'set', `${name}b`, 'netns', name],
    ['addr', 'add', `${host}/30`, 'dev', `${name}a`],
    ['link', 'set', `${name}a`, 'up'],
    ['netns', 'exec', name, 'ip', 'addr', 'add', `${peer}/30`, 'dev', `${name}b`],
    ['netns', 'exec', name, 'ip', 'link', 'set', `${name}b`, 'up'],
    ...(opts.defaultRoute ? [['netns', 'exec', name, 'ip', 'route', 'add', 'default', 'via', host]] : []),
  ];
  for (const step of steps) await run('ip', step);
  const server = spawn('ip', ['netns', 'exec', name, 'busybox', 'httpd', '-f', '-p', '8080', '-h', www], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 300));
  return {
    address: peer,
    port: 8080,
    hostAddress: host,
    sh: (line) =>
      exec('ip', ['netns', 'exec', name, 'sh', '-c', line]).then(
        (r) => r.stdout,
        () => '',
      ),
    stop: async () => {
      server.kill('SIGKILL');
      await new Promise((r) => (server.exitCode === null ? server.once('exit', r) : r(undefined)));
      await run('ip', ['link', 'del', `${name}a`]).catch(() => undefined);
      await run('ip', ['netns', 'del', name]).catch(() => undefined);
      fs.rmSync(www, { recursive: true, force: true });
    },
  };
}
