/**
 * Where a job or node address leads, as the control plane answers now (no
 * cache: resolver.ts keeps the answers). A job address goes to the ingress
 * of the node running it, and its ready endpoints' labels to their forwards;
 * an address that is no job may be a node's own.
 */
import type { JobRouteRecord } from '@ocg/contracts';
import { ServiceClient } from '@ocg/http';

/** Where a job or node host is served from, or why it is not. */
export type IngressTarget =
  /** `forwards`: first label -> `<IPv4>:<port>` the node forwards to the container (ADR 0092); other labels go to `ingressUrl`. */
  | { kind: 'job'; job: string; ingressUrl: string; forwards: Record<string, string> }
  | { kind: 'node'; node: string; ingressUrl: string }
  | { kind: 'not-ready'; job: string; status: string }
  | { kind: 'node-offline'; node: string }
  | { kind: 'unknown' };

export interface RouteLookupOptions {
  deploymentManagerUrl: string;
  hostManagerUrl: string;
  internalToken: string;
  /** Per lookup request. */
  timeoutMs?: number;
}

/** The two services a lookup asks, made once per resolver. */
export interface RouteServices {
  deploymentManager: ServiceClient;
  hostManager: ServiceClient;
}

export function routeServices(opts: RouteLookupOptions): RouteServices {
  // No retries: the resolver remembers a failed lookup for its negativeMs instead, which is what bounds the
  // lookups a flood of unknown hosts costs the control plane (retries would multiply them).
  const service = (name: string, baseUrl: string) =>
    new ServiceClient({ service: name, baseUrl, internalToken: opts.internalToken, timeoutMs: opts.timeoutMs ?? 5000, retries: 0 });
  return { deploymentManager: service('deployment-manager', opts.deploymentManagerUrl), hostManager: service('host-manager', opts.hostManagerUrl) };
}

/** Asks deployment-manager (job → node), then host-manager (node → ingress URL). Throws when either cannot answer. */
export async function lookUpRoute(address: string, { deploymentManager, hostManager }: RouteServices): Promise<IngressTarget> {
  // A deployment-manager from before forwards (ADR 0092) sends none: every label goes to the node's ingress.
  const job = await get<Omit<JobRouteRecord, 'forwards'> & Partial<JobRouteRecord>>(deploymentManager, `/internal/jobs/${encodeURIComponent(address)}`);
  if (job) {
    if (job.status !== 'RUNNING' || !job.node) return { kind: 'not-ready', job: job.job, status: job.status };
    const node = await get<{ ingressUrl: string }>(hostManager, `/internal/nodes/${encodeURIComponent(job.node)}`);
    return node ? { kind: 'job', job: job.job, ingressUrl: node.ingressUrl, forwards: job.forwards ?? {} } : { kind: 'not-ready', job: job.job, status: 'NODE_UNKNOWN' };
  }
  const node = await get<{ address: string; ingressUrl: string; status?: string }>(hostManager, `/internal/nodes/${encodeURIComponent(address)}`);
  if (!node) return { kind: 'unknown' };
  // A node without presence (no heartbeat within its TTL) serves nothing: its address may be someone else's by now.
  return node.status === 'OFFLINE' ? { kind: 'node-offline', node: node.address } : { kind: 'node', node: node.address, ingressUrl: node.ingressUrl };
}

/** The body of a 200, undefined for a 404; anything else throws (the caller answers 503). */
async function get<T>(service: ServiceClient, path: string): Promise<T | undefined> {
  const res = await service.request<T>({ path });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`${service.name} answered ${res.status}`);
  return res.body;
}
