/**
 * Which host names are job and node hosts: `<label>.<node domain>`. DNS
 * lowercases names and base58 is case-sensitive, so the first label is
 * matched case-insensitively downstream. The job address is the part of the
 * label before the first '-' (base58 has no '-'): `<job>`, `<job>-<port>`,
 * `<job>-<opIndex>-<port>`; a node's API lives at `<node address>`.
 */
export interface IngressHost {
  /** The whole first label, lowercased. */
  label: string;
  /** The address part: a job's, or a node's. */
  address: string;
}

export function parseIngressHost(hostHeader: string | undefined, nodeDomain: string): IngressHost | undefined {
  if (!hostHeader) return undefined;
  const name = hostHeader.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const suffix = `.${nodeDomain.toLowerCase()}`;
  if (!name.endsWith(suffix)) return undefined;
  const label = name.slice(0, -suffix.length);
  if (!label || label.includes('.')) return undefined;
  const address = label.split('-')[0];
  return address ? { label, address } : undefined;
}
