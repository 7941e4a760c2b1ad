import dns from 'node:dns';
import net, { BlockList } from 'node:net';

/**
 * Which addresses a proxy may connect to on a caller's behalf. A node tells
 * the control plane where its ingress is; without this check the gateway
 * would fetch any URL inside its own network for whoever registers a node
 * (cloud metadata, Redis, the services' internal routes). Refused unless the
 * operator allows them: loopback, link-local (metadata), private (RFC 1918,
 * ULA), CGNAT, "this network", benchmarking, multicast and reserved ranges.
 */
const REFUSED: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 3, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

const refused = new BlockList();
for (const [net_, prefix, family] of REFUSED) refused.addSubnet(net_, prefix, family);

export interface AddressPolicy {
  /** Every address is allowed (development, the local stack, tests). */
  allowPrivate: boolean;
  /** Ranges allowed although they fall in a refused one (an operator's own node network). */
  allow: BlockList;
}

/** The entries of a CIDR list as written (`10.1.0.0/16, fd00::/8` → two), unchecked: `parseCidrList` checks them. */
export function cidrEntries(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Parses `10.1.0.0/16, fd00::/8, 192.0.2.7` (a bare address is a /32 or /128); throws on a bad entry. */
export function parseCidrList(text: string | undefined): BlockList {
  const list = new BlockList();
  for (const entry of cidrEntries(text)) {
    const [address, bits] = entry.split('/');
    const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : undefined;
    const max = family === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > max || (bits !== undefined && !/^\d+$/.test(bits))) {
      throw new Error(`"${entry}" is not an IP address or CIDR range`);
    }
    list.addSubnet(address, prefix, family);
  }
  return list;
}

export function createAddressPolicy(opts: { allowPrivate?: boolean; allowCidrs?: string } = {}): AddressPolicy {
  return { allowPrivate: opts.allowPrivate ?? false, allow: parseCidrList(opts.allowCidrs) };
}

/** IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses are judged as the IPv4 address they carry. */
function embeddedIpv4(address: string): string | undefined {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return undefined;
  if (m[1]) return m[1];
  const hi = parseInt(m[2], 16);
  const lo = parseInt(m[3], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Inside a list, whichever family the address is written in. */
export function inList(list: BlockList, address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4 = net.isIPv4(bare) ? bare : embeddedIpv4(bare);
  if (v4) return list.check(v4, 'ipv4') || list.check(`::ffff:${v4}`, 'ipv6');
  return net.isIPv6(bare) && list.check(bare, 'ipv6');
}

/** Why the policy refuses this IP address, or undefined when it may be reached. */
export function addressRefusal(address: string, policy: AddressPolicy): string | undefined {
  if (policy.allowPrivate || inList(policy.allow, address)) return undefined;
  if (!net.isIP(address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')) && !embeddedIpv4(address)) return `${address} is not an IP address`;
  return inList(refused, address) ? `${address} is a loopback, link-local, private or reserved address` : undefined;
}

/**
 * Checks a URL the gateway is asked to reach: http or https only, no
 * credentials, and a literal IP host must be allowed. A host name is
 * checked when it is resolved, at connect time (`guardedLookup`), so a
 * name that later points inside is refused too.
 */
export function urlRefusal(text: string, policy: AddressPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be http or https, not ${url.protocol.slice(0, -1)}`;
  if (url.username || url.password) return 'must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return net.isIP(host) ? addressRefusal(host, policy) : undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for sockets (set it on an http/https Agent): resolves the name
 * and fails the connection unless every address it resolves to is allowed,
 * so the socket connects to the very address that was checked (no second
 * resolution an attacker's DNS could answer differently).
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as dns.LookupAddress[];
      const bad = list.map((a) => addressRefusal(a.address, policy)).find(Boolean);
      if (bad || list.length === 0) {
        const refusal = Object.assign(new Error(`refused to connect to ${hostname}: ${bad ?? 'no address'}`), { code: 'EADDRREFUSED_POLICY' });
        return callback(refusal, '');
      }
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
