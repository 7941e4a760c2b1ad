/**
 * HTTPS to the local stack from this process: trust the stack's local CA, and
 * send `*.localhost` names to 127.0.0.1 (curl and browsers do; the system
 * resolver may not). Installed as the global dispatcher, so plain fetch and
 * the generated client both use it.
 */
import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import dns from 'node:dns';
import { Agent, setGlobalDispatcher } from 'undici';

const lookup: LookupFunction = (hostname, options, callback) => {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    if ((options as dns.LookupOptions).all) (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
    return;
  }
  dns.lookup(hostname, options, callback);
};

/** A dispatcher for fetch that trusts the CA and resolves `*.localhost` to loopback. */
export function localHttpsDispatcher(caFile: string): Agent {
  return new Agent({ connect: { ca: readFileSync(caFile), lookup } });
}

/** Makes every fetch of this process use {@link localHttpsDispatcher}. */
export function trustLocalCa(caFile: string): void {
  setGlobalDispatcher(localHttpsDispatcher(caFile));
}

/** For `ws`, `https.request` and friends: the same resolution of `*.localhost`. */
export const localhostLookup = lookup;
