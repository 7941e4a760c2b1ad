import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { processAlive, unrefAll } from './process';

const exec = promisify(execFile);

/**
 * Last-resort cleanup after a spec: every container, volume and network a node
 * agent made for this node id (found by its `ocg.node` label, so nothing another
 * process made), and the iptables rules of each job network (the agent removes
 * them with the network; a spec that stopped the agent first must do it too).
 * What is gone already is no error.
 */
export async function removeNodeObjects(nodeId: string, docker = new Docker({ socketPath: '/var/run/docker.sock' })): Promise<void> {
  const filters = JSON.stringify({ label: [`ocg.node=${nodeId}`] });
  const ignore = (): undefined => undefined;
  for (const c of await docker.listContainers({ all: true, filters })) await docker.getContainer(c.Id).remove({ force: true }).catch(ignore);
  for (const v of (await docker.listVolumes({ filters })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(ignore);
  for (const n of await docker.listNetworks({ filters })) {
    const job = n.Labels?.['ocg.job'];
    if (job) await dropJobRules(job);
    await docker.getNetwork(n.Id).remove().catch(ignore);
  }
  await dropTagged(`ocg-fwd:${nodeId}:`, [
    ['nat', 'PREROUTING'],
    ['nat', 'OUTPUT'],
    ['filter', 'DOCKER-USER'],
  ]);
}

/** The iptables rules the agent made for a job network (tagged `ocg-job-<job>`); none without iptables. */
export async function dropJobRules(job: string): Promise<void> {
  await dropTagged(`ocg-job-${job} `, [
    ['filter', 'INPUT'],
    ['filter', 'DOCKER-USER'],
  ]);
}

/** Rules whose comment starts with `prefix` (iptables quotes some comments: read without quotes). */
async function dropTagged(prefix: string, chains: [string, string][]): Promise<void> {
  for (const [table, chain] of chains) {
    const { stdout } = await exec('iptables', ['-w', '5', '-t', table, '-S', chain]).catch(() => ({ stdout: '' }));
    for (const line of stdout.replace(/"/g, '').split('\n')) {
      if (line.includes(`--comment ${prefix}`)) await exec('iptables', ['-w', '5', '-t', table, '-D', ...line.slice(3).trim().split(/\s+/)]).catch(() => undefined);
    }
  }
}

let sweeper: ChildProcess | undefined;

/** This boot of the machine: an owner from an earlier boot is gone whatever its pid says now. */
const BOOT = (() => {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replace(/-/g, '').slice(0, 6);
  } catch {
    return '000000';
  }
})();

/** `t-<name>.<boot>.<owner pid>.<4 hex>`: who made the id, so a later run can tell its owner is gone. */
const OWNED_ID = /^t-.+\.([0-9a-f]{6})\.(\d+)\.[0-9a-f]{4}$/;

/**
 * A fresh node id for a spec's node agent (`t-<name>.<boot>.<pid>.<4 hex>`),
 * whose Docker objects are removed once this process is gone, however it
 * goes: a spec's own cleanup does not run when the test run is killed, and the
 * agent's job containers and networks stayed behind. One detached sweeper per
 * process (node-sweeper.ts) collects the ids and sweeps them when this
 * process's end of its pipe closes. When the sweeper dies with its owner (the
 * machine stopped), the first id a later process asks for sweeps what
 * `sweepOrphans` finds instead.
 */
export function testNodeId(name: string): string {
  const id = `t-${name}.${BOOT}.${process.pid}.${randomBytes(2).toString('hex')}`;
  if (!sweeper) {
    sweeper = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'node-sweeper.ts')], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    sweeper.on('error', () => undefined);
    sweeper.stdin?.on('error', () => undefined);
    unrefAll(sweeper);
    void sweepOrphans().catch(() => undefined);
  }
  sweeper.stdin?.write(`${id}\n`);
  return id;
}

/**
 * Removes the Docker objects of test node ids whose owner is provably gone: made
 * in an earlier boot, or by a process of this boot that no longer exists. Ids
 * it cannot read an owner from are left alone (they may be another's).
 */
export async function sweepOrphans(docker = new Docker({ socketPath: '/var/run/docker.sock' })): Promise<string[]> {
  const filters = JSON.stringify({ label: ['ocg.node'] });
  const labels = [
    ...(await docker.listContainers({ all: true, filters })).map((c) => c.Labels),
    ...(await docker.listNetworks({ filters })).map((n) => n.Labels ?? {}),
    ...((await docker.listVolumes({ filters })).Volumes ?? []).map((v) => v.Labels ?? {}),
  ];
  const orphans = [...new Set(labels.map((l) => l['ocg.node']))].filter((id) => {
    const owner = OWNED_ID.exec(id ?? '');
    return owner !== null && (owner[1] !== BOOT || !processAlive(Number(owner[2])));
  });
  for (const id of orphans) await removeNodeObjects(id, docker);
  return orphans;
}

/**
 * A remote-resource cache directory of its own for one test node agent
 * (`RESOURCE_CACHE_DIR`): agents must not share one, and the default is in the
 * home directory. Removed when the test process exits.
 */
export function testResourceDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ocg-resources-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
