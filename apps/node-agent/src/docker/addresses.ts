/** Addresses a job must not reach, and registries a job must not name: the host's networks, not the internet. */
import { BlockList, isIP } from 'node:net';

/** IPv4 ranges that are not the public internet: loopback, private, shared (CGNAT), link-local, "this network". */
export const PRIVATE_IPV4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16'];
const PRIVATE_IPV6 = ['::/128', '::1/128', 'fc00::/7', 'fe80::/10'];

const blocked = new BlockList();
for (const cidr of PRIVATE_IPV4) addSubnet(cidr, 'ipv4');
for (const cidr of PRIVATE_IPV6) addSubnet(cidr, 'ipv6');

function addSubnet(cidr: string, type: 'ipv4' | 'ipv6'): void {
  const [net, bits] = cidr.split('/');
  blocked.addSubnet(net, Number(bits), type);
}

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPrivateAddress(mapped[1]);
  const type = isIP(address);
  if (type === 0) return false;
  return blocked.check(address, type === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The engine's error text without the addresses it dialled: a poster learns
 * that a pull failed, not where this node's resolvers or neighbours are.
 * What the poster wrote (`keep`, the registry of the reference) stays.
 */
export function withoutAddresses(text: string, keep: string): string {
  const host = keep.replace(/:\d+$/, '');
  return text
    .replace(/\[[0-9a-f:.%]+\](:\d+)?/gi, (m) => (m.startsWith(`[${host}]`) ? m : '<address>'))
    .replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b/g, (m) => (m === keep || m.replace(/:\d+$/, '') === host ? m : '<address>'));
}
