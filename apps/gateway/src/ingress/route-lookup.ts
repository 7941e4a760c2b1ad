/**
 * Where a job or node address leads, as the control plane answers now (no
 * cache: resolver.ts keeps the answers). A job address goes to the ingress
 * of the node running it; an address that is no job may be a node's own.
 */

/** Where a job or node host is served from, or why it is not. */
export type IngressTarget =
  | { kind: 'job'; job: string; ingressUrl: string }
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

/** Asks deployment-manager (job → node), then host-manager (node → ingress URL). Throws when either cannot answer. */
export async function lookUpRoute(address: string, opts: RouteLookupOptions): Promise<IngressTarget> {
  const job = await get<{ job: string; status: string; node: string | null }>(`${opts.deploymentManagerUrl}/internal/jobs/${encodeURIComponent(address)}`, opts);
  if (job) {
    if (job.status !== 'RUNNING' || !job.node) return { kind: 'not-ready', job: job.job, status: job.status };
    const node = await get<{ ingressUrl: string }>(`${opts.hostManagerUrl}/internal/nodes/${encodeURIComponent(job.node)}`, opts);
    return node ? { kind: 'job', job: job.job, ingressUrl: node.ingressUrl } : { kind: 'not-ready', job: job.job, status: 'NODE_UNKNOWN' };
  }
  const node = await get<{ address: string; ingressUrl: string; status?: string }>(`${opts.hostManagerUrl}/internal/nodes/${encodeURIComponent(address)}`, opts);
  if (!node) return { kind: 'unknown' };
  // A node without presence (no heartbeat within its TTL) serves nothing: its address may be someone else's by now.
  return node.status === 'OFFLINE' ? { kind: 'node-offline', node: node.address } : { kind: 'node', node: node.address, ingressUrl: node.ingressUrl };
}

/** The body of a 200, undefined for a 404; anything else throws (the caller answers 503). */
async function get<T>(url: string, opts: RouteLookupOptions): Promise<T | undefined> {
  const res = await fetch(url, {
    headers: { 'x-ocg-internal-token': opts.internalToken, accept: 'application/json' },
    signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
  });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`${url.replace(/\/internal\/.*/, '')} answered ${res.status}`);
  return (await res.json()) as T;
}
