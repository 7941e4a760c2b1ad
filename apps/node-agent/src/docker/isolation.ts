/**
 * Job networks reach the internet only: not the host, not the LAN, not
 * private, shared or link-local (cloud metadata) addresses. iptables rules
 * per job network, tagged with the job, made with the network (and again
 * when a restarted agent adopts the job: a reboot or a firewall reload may
 * have flushed them) and removed with it.
 *
 * - INPUT: new connections from the job's bridge to the host are dropped (the
 *   host's own connections to containers, the ingress and health checks, are
 *   replies there and still pass).
 * - DOCKER-USER (the chain Docker leaves for this on the forward path): what
 *   leaves the job's bridge for another interface towards a private range or
 *   one of the host's own subnets is dropped; traffic inside the job network
 *   never leaves its bridge and is untouched. The host's resolvers (port 53)
 *   and the operator's NETWORK_ISOLATION_ALLOW ranges are let through first.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import type { Logger } from 'pino';
import { PRIVATE_IPV4, isPrivateAddress } from './addresses';

const exec = promisify(execFile);

export interface NetworkIsolation {
  isolate(docker: Docker, network: string, job: string): Promise<void>;
  release(docker: Docker, network: string, job: string): Promise<void>;
}

const CHAINS = ['INPUT', 'DOCKER-USER'];

async function iptables(command: string, args: string[]): Promise<boolean> {
  try {
    await exec(command, ['-w', '5', ...args]);
    return true;
  } catch {
    return false;
  }
}

/** The host's own IPv4 subnets outside the private ranges (a LAN on public or documentation addresses). */
export function hostSubnets(): string[] {
  const out = new Set<string>();
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal && a.cidr && !isPrivateAddress(a.address)) out.add(networkOf(a.cidr));
  }
  return [...out];
}

function networkOf(cidr: string): string {
  const [ip, bits] = cidr.split('/');
  const n = ip.split('.').reduce((acc, part) => (acc << 8) | Number(part), 0) >>> 0;
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  const net = (n & mask) >>> 0;
  return `${[24, 16, 8, 0].map((s) => (net >>> s) & 255).join('.')}/${bits}`;
}

/** Private, non-loopback name servers of the host: the engine's DNS forwards jobs' lookups to them. */
function privateResolvers(): string[] {
  try {
    const text = fs.readFileSync('/etc/resolv.conf', 'utf8');
    const servers = [...text.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((m) => m[1]);
    return servers.filter((s) => isPrivateAddress(s) && !s.startsWith('127.') && s.includes('.'));
  } catch {
    return [];
  }
}

async function rulesOf(docker: Docker, network: string, job: string, allow: string[]): Promise<string[][] | undefined> {
  const info = await docker
    .getNetwork(network)
    .inspect()
    .catch(() => undefined);
  if (!info?.Id) return undefined;
  const bridge = `br-${String(info.Id).slice(0, 12)}`;
  const tag = ['-m', 'comment', '--comment', `ocg-job-${job}`];
  const out = ['-i', bridge, '!', '-o', bridge];
  const drops = [...new Set([...PRIVATE_IPV4, ...hostSubnets()])].map((d) => ['DOCKER-USER', ...out, '-d', d, ...tag, '-j', 'DROP']);
  const dns = privateResolvers().flatMap((ns) => ['udp', 'tcp'].map((p) => ['DOCKER-USER', ...out, '-d', ns, '-p', p, '--dport', '53', ...tag, '-j', 'RETURN']));
  const allowed = allow.map((d) => ['DOCKER-USER', ...out, '-d', d, ...tag, '-j', 'RETURN']);
  // Inserted in this order at the top of each chain, so the last ones (the exceptions) come first.
  return [['INPUT', '-i', bridge, '-m', 'conntrack', '--ctstate', 'NEW', ...tag, '-j', 'DROP'], ...drops, ...dns, ...allowed];
}

/** The job's rules as `iptables -S` prints them, turned into delete commands. */
async function taggedRules(command: string, job: string): Promise<string[][]> {
  const out: string[][] = [];
  for (const chain of CHAINS) {
    const { stdout } = await exec(command, ['-w', '5', '-S', chain]).catch(() => ({ stdout: '' }));
    for (const line of stdout.split('\n')) {
      if (line.startsWith('-A ') && line.includes(`ocg-job-${job} `)) out.push(['-D', ...line.slice(3).trim().split(/\s+/)]);
    }
  }
  return out;
}

function rules(command: string, allow: string[]): NetworkIsolation {
  return {
    async isolate(docker, network, job) {
      const specs = await rulesOf(docker, network, job, allow);
      if (!specs) throw new Error(`cannot isolate the job network ${network}: it does not exist`);
      for (const [chain, ...spec] of specs) {
        if (await iptables(command, ['-C', chain, ...spec])) continue;
        if (!(await iptables(command, ['-I', chain, ...spec]))) throw new Error(`cannot isolate the job network: iptables refused a rule in ${chain}`);
      }
    },
    async release(_docker, _network, job) {
      for (const args of await taggedRules(command, job)) await iptables(command, args);
    },
  };
}

/**
 * `true` (the default): isolate, or refuse to start when iptables cannot be
 * used here; `false`: the operator turned isolation off (development only).
 */
export interface IsolationSettings {
  enabled: boolean;
  /** Ranges let through despite isolation. */
  allow: string[];
  /** The iptables command Docker uses here (iptables, iptables-legacy, iptables-nft). */
  command: string;
}

export async function networkIsolation(settings: IsolationSettings, logger: Logger): Promise<NetworkIsolation | undefined> {
  const { enabled: mode, allow, command } = settings;
  if (!mode) {
    logger.warn('NETWORK_ISOLATION=false: job networks can reach this host, its LAN and link-local addresses');
    return undefined;
  }
  if (await iptables(command, ['-S', 'DOCKER-USER'])) return rules(command, allow);
  throw new Error(
    `job networks cannot be isolated: ${command} with the DOCKER-USER chain is not usable here (the agent must run as root next to dockerd); ` +
      'set NETWORK_ISOLATION=false to run jobs without isolation (development only)',
  );
}
