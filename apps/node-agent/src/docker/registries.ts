/** Jobs pull from the internet, not from registries on this node's loopback or networks (unless the operator allows one). */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from './addresses';

/**
 * Why `registry` (a reference's registry host, `host[:port]`) may not be
 * pulled from: it is, or resolves to, a loopback, private or link-local
 * address and the operator did not allow it. Undefined: it may.
 */
export async function privateRegistryRefusal(registry: string, allowedList: string[]): Promise<string | undefined> {
  const host = hostOf(registry);
  if (allowed(registry, host, allowedList)) return undefined;
  const addresses = isIP(host) ? [host] : host === 'localhost' ? ['127.0.0.1'] : await resolve(host);
  if (!addresses.some(isPrivateAddress)) return undefined;
  return `registry ${registry} is on a loopback, private or link-local address, which jobs may not pull from`;
}

function hostOf(registry: string): string {
  const bracketed = /^\[([^\]]+)\](:\d+)?$/.exec(registry);
  if (bracketed) return bracketed[1];
  return registry.replace(/:\d+$/, '').toLowerCase();
}

function allowed(registry: string, host: string, list: string[]): boolean {
  return list.some((entry) => entry === '*' || entry.toLowerCase() === registry.toLowerCase() || entry.toLowerCase() === host);
}

/** Unresolvable: the pull fails on its own with the engine's message. */
async function resolve(host: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return [];
  }
}
