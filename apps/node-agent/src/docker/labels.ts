/**
 * Every Docker object the agent makes carries these labels. They are the
 * agent's only memory: a restarted agent finds its jobs by them.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decryptSecret, encryptSecret, type WalletSigner } from '@ocg/auth';

export const LABEL = {
  managed: 'ocg.managed',
  node: 'ocg.node',
  job: 'ocg.job',
  op: 'ocg.op',
  group: 'ocg.group',
  kind: 'ocg.kind',
  attempt: 'ocg.attempt',
  poster: 'ocg.poster',
  deadline: 'ocg.deadline',
  startedAt: 'ocg.started-at',
  definition: 'ocg.definition',
  /** On job networks: the market's container limits from the claim (JSON; absent: the node's own). */
  limits: 'ocg.limits',
  note: 'ocg.note',
  /** On containers: the op's exposed ports and checks as resolved at its start. */
  ports: 'ocg.ports',
  /**
   * On containers: the `seq` the container's first log line got. The op's log
   * goes on across its containers (restarts) and holds the node's own lines
   * (pulls, exits), which the engine's log lacks: a restarted agent numbers
   * the adopted container's lines from here, as its predecessor did.
   */
  logSeq: 'ocg.log-seq',
  /** On private-repository markers (engine-wide, no node). */
  repository: 'ocg.repository',
} as const;

export type ObjectKind = 'job-network' | 'op-container' | 'job-volume' | 'note' | 'private-repository';

export function jobLabels(node: string, job: string, kind: ObjectKind): Record<string, string> {
  return { [LABEL.managed]: 'true', [LABEL.node]: node, [LABEL.job]: job, [LABEL.kind]: kind };
}

export function opLabels(node: string, job: string, op: { id: string; group: string }, attempt: number): Record<string, string> {
  return { ...jobLabels(node, job, 'op-container'), [LABEL.op]: op.id, [LABEL.group]: op.group, [LABEL.attempt]: String(attempt) };
}

/** Filters for the Docker list and events APIs. */
export function labelFilter(node: string, extra: Record<string, string> = {}): { label: string[] } {
  const pairs = { [LABEL.managed]: 'true', [LABEL.node]: node, ...extra };
  return { label: Object.entries(pairs).map(([k, v]) => `${k}=${v}`) };
}

/**
 * The key blobs are sealed with. A definition carries env values and registry
 * credentials, and labels are readable by anyone who may list Docker objects
 * (and travel with `docker inspect` output into support tickets), so with a
 * node key the blob is sealed (AES-256-GCM) under a key only that node can
 * make. Without one (`--run`, a development tool) blobs stay gzip + base64.
 */
let blobKey: Buffer | undefined;

/** Called once by the composition root: the key is a hash of the node key's (deterministic) signature of a fixed text. */
export function sealBlobsWith(signer: WalletSigner | undefined): void {
  blobKey = signer ? createHash('sha256').update(signer.sign('ocg-node-agent: docker label key')).digest() : undefined;
}

const SEALED = 'v1.';

/** JSON, gzipped and base64'd (a definition can be tens of KiB of repetitive text); sealed when a node key is set. */
export function encodeBlob(value: unknown): string {
  const zipped = gzipSync(Buffer.from(JSON.stringify(value)));
  return blobKey ? encryptSecret(blobKey, zipped, 'ocg-label') : zipped.toString('base64');
}

export function decodeBlob<T>(text: string): T {
  const zipped = text.startsWith(SEALED) && blobKey ? decryptSecret(blobKey, text, 'ocg-label') : Buffer.from(text, 'base64');
  return JSON.parse(gunzipSync(zipped).toString('utf8')) as T;
}

/** Object names: readable in `docker ps`, unique per engine because job addresses are. */
export const names = {
  network: (job: string) => `ocg-${job}`,
  container: (job: string, op: string, attempt: number) => `ocg-${job}-${op}-${attempt}`,
  volume: (job: string, name: string) => `ocg-${job}-v-${name}`,
  note: (job: string, suffix: string) => `ocg-${job}-n-${suffix}`,
};
