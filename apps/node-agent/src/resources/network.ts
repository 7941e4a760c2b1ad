/**
 * Every connection a resource fetch makes goes through the operator's
 * address policy: host names are checked on the addresses they resolve to,
 * at connect time (the socket connects to the address that was checked),
 * literal IP hosts before connecting, and each redirect hop again.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Agent, fetch as undiciFetch } from 'undici';
import { addressRefusal, createAddressPolicy, guardedLookup, type AddressPolicy } from '@ocg/http';
import { ResourceError } from './source';

const MAX_REDIRECTS = 10;

/** `RESOURCE_ALLOW`: addresses (CIDR) and host names the node may fetch from although they are loopback, private or link-local; `*`: any. */
export interface ResourcePolicy {
  addresses: AddressPolicy;
  hosts: string[];
}

export function resourcePolicy(allow: string[]): ResourcePolicy {
  const any = allow.includes('*');
  const cidrs = allow.filter((entry) => net.isIP(entry.split('/')[0]) !== 0);
  const hosts = allow.filter((entry) => !cidrs.includes(entry) && entry !== '*').map((h) => h.toLowerCase());
  return { addresses: createAddressPolicy({ allowPrivate: any, allowCidrs: cidrs.join(',') }), hosts };
}

/** Why a URL may not be fetched (not http(s), credentials in it, a refused literal address); undefined: it may, subject to the connect-time check. */
export function urlRefusal(url: URL, policy: ResourcePolicy): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol.slice(0, -1)} URLs are not fetched (http or https only)`;
  if (url.username || url.password) return 'URLs must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (policy.hosts.includes(host.toLowerCase())) return undefined;
  if (net.isIP(host)) return addressRefusal(host, policy.addresses);
  return host.toLowerCase() === 'localhost' ? addressRefusal('127.0.0.1', policy.addresses) : undefined;
}

function lookupFor(policy: ResourcePolicy) {
  const guarded = guardedLookup(policy.addresses);
  const open = guardedLookup({ ...policy.addresses, allowPrivate: true });
  return (hostname: string, options: Parameters<typeof guarded>[1], callback: Parameters<typeof guarded>[2]) =>
    (policy.hosts.includes(hostname.toLowerCase()) ? open : guarded)(hostname, options, callback);
}

/** The refusal as a ResourceError, with the host it was for. */
function refused(url: URL, why: string): ResourceError {
  return new ResourceError('refused', `${url.host}: ${why} (RESOURCE_ALLOW lists what the operator allows)`);
}

/** `fetch` that follows redirects itself, checking each hop, and connects only to allowed addresses. */
export function guardedFetch(policy: ResourcePolicy): typeof fetch {
  const dispatcher = new Agent({ connect: { lookup: lookupFor(policy) }, keepAliveTimeout: 10_000 });
  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let url = new URL(input instanceof Request ? input.url : input.toString());
    let options = { ...(init ?? {}) };
    for (let hop = 0; ; hop++) {
      const why = urlRefusal(url, policy);
      if (why) throw refused(url, why);
      const response = await undiciFetch(url, { ...(options as object), redirect: 'manual', dispatcher }).catch((err: Error & { cause?: { code?: string; message?: string } }) => {
        if (err.cause?.code === 'EADDRREFUSED_POLICY') throw refused(url, err.cause.message ?? 'refused');
        throw err;
      });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return response as unknown as Response;
      if (hop >= MAX_REDIRECTS) throw new ResourceError('unavailable', `${url.host}: more than ${MAX_REDIRECTS} redirects`);
      await response.body?.cancel();
      const next = new URL(location, url);
      // Credentials set for one host are not sent to another.
      if (next.host !== url.host && options.headers) {
        const headers = new Headers(options.headers);
        headers.delete('authorization');
        options = { ...options, headers };
      }
      if (response.status === 303) options = { ...options, method: 'GET', body: undefined };
      url = next;
    }
  }) as typeof fetch;
}

/** The S3 client's HTTP handler: its sockets connect only to allowed addresses. */
export function guardedS3Handler(policy: ResourcePolicy, idleTimeoutMs: number): NodeHttpHandler {
  const lookup = lookupFor(policy) as unknown as net.LookupFunction;
  return new NodeHttpHandler({
    httpAgent: new http.Agent({ keepAlive: true, lookup }),
    httpsAgent: new https.Agent({ keepAlive: true, lookup }),
    connectionTimeout: 10_000,
    requestTimeout: idleTimeoutMs,
    throwOnRequestTimeout: true,
  });
}
