/**
 * Ingress host rules (ARCHITECTURE.md, "The main flow"): the first label of
 * the host names the target, case-insensitively, because DNS lowercases host
 * names while base58 addresses are case-sensitive.
 *   <job>                  the job's first exposed port
 *   <job>-<port>           that port (the first op exposing it)
 *   <job>-<opIndex>-<port> that op's port (when two ops expose the same port)
 *   <node address>         the node API
 */
export type HostTarget = { kind: 'node-api' } | { kind: 'job'; job: string; rest: string[] } | { kind: 'none' };

// Sliced rather than split or matched: this runs for every proxied request.
export function firstLabel(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const name = host.trim();
  const dot = name.indexOf('.');
  // A `:port` suffix (digits only, so never holding a dot) can only end the first label when there is no dot.
  const label = dot >= 0 ? name.slice(0, dot) : name.replace(/:\d+$/, '');
  return label ? label.toLowerCase() : undefined;
}

export function parseHost(host: string | undefined, nodeAddress: string | undefined): HostTarget {
  const label = firstLabel(host);
  if (!label) return { kind: 'none' };
  if (nodeAddress && label === nodeAddress.toLowerCase()) return { kind: 'node-api' };
  // Base58 has no '-', so the address is everything before the first one.
  const dash = label.indexOf('-');
  if (dash < 0) return { kind: 'job', job: label, rest: [] };
  return dash > 0 ? { kind: 'job', job: label.slice(0, dash), rest: label.slice(dash + 1).split('-') } : { kind: 'none' };
}
