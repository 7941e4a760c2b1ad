/**
 * Job networks cannot reach the host or link-local (cloud metadata)
 * addresses: two iptables rules per job network, tagged with the job, made
 * with the network and removed with it. New connections from the job's bridge
 * to the host are dropped in INPUT (the host's own connections to containers,
 * the ingress and health checks, are replies there and still pass); anything
 * from the job's subnet to 169.254.0.0/16 is dropped in DOCKER-USER, the chain
 * Docker leaves for this on the forward path.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import type { Logger } from 'pino';

const exec = promisify(execFile);

export interface NetworkIsolation {
  isolate(docker: Docker, network: string, job: string): Promise<void>;
  release(docker: Docker, network: string, job: string): Promise<void>;
}

async function iptables(args: string[]): Promise<boolean> {
  try {
    await exec('iptables', ['-w', '5', ...args]);
    return true;
  } catch {
    return false;
  }
}

async function rulesOf(docker: Docker, network: string, job: string): Promise<string[][] | undefined> {
  const info = await docker.getNetwork(network).inspect().catch(() => undefined);
  const subnet = info?.IPAM?.Config?.[0]?.Subnet as string | undefined;
  if (!info || !subnet) return undefined;
  const bridge = `br-${String(info.Id).slice(0, 12)}`;
  const tag = ['-m', 'comment', '--comment', `ocg-job-${job}`];
  return [
    ['INPUT', '-i', bridge, '-m', 'conntrack', '--ctstate', 'NEW', ...tag, '-j', 'DROP'],
    ['DOCKER-USER', '-s', subnet, '-d', '169.254.0.0/16', ...tag, '-j', 'DROP'],
  ];
}

const rules: NetworkIsolation = {
  async isolate(docker, network, job) {
    const specs = await rulesOf(docker, network, job);
    if (!specs) throw new Error(`cannot isolate the job network ${network}: it has no subnet`);
    for (const [chain, ...spec] of specs) {
      if (await iptables(['-C', chain, ...spec])) continue;
      if (!(await iptables(['-I', chain, ...spec]))) throw new Error(`cannot isolate the job network: iptables refused a rule in ${chain}`);
    }
  },
  async release(docker, network, job) {
    for (const [chain, ...spec] of (await rulesOf(docker, network, job)) ?? []) {
      while (await iptables(['-D', chain, ...spec]));
    }
  },
};

/**
 * `true`: isolate or refuse to start; `auto`: isolate when iptables works
 * here (root, with Docker's DOCKER-USER chain), else warn; `false`: never.
 */
export async function networkIsolation(mode: 'auto' | 'true' | 'false', logger: Logger): Promise<NetworkIsolation | undefined> {
  if (mode === 'false') return undefined;
  if (await iptables(['-S', 'DOCKER-USER'])) return rules;
  const why = 'iptables with the DOCKER-USER chain is not usable here (the agent must run as root next to dockerd)';
  if (mode === 'true') throw new Error(`NETWORK_ISOLATION=true but ${why}`);
  logger.warn(`job networks are NOT isolated from the host: ${why}`);
  return undefined;
}
