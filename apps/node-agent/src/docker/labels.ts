/**
 * Every Docker object the agent makes carries these labels. They are the
 * agent's only memory: a restarted agent finds its jobs by them.
 */
import { gunzipSync, gzipSync } from 'node:zlib';

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
  note: 'ocg.note',
  /** On containers: the op's exposed ports and checks as resolved at its start. */
  ports: 'ocg.ports',
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

/** JSON, gzipped and base64'd: a definition can be tens of KiB of repetitive text. */
export function encodeBlob(value: unknown): string {
  return gzipSync(Buffer.from(JSON.stringify(value))).toString('base64');
}

export function decodeBlob<T>(text: string): T {
  return JSON.parse(gunzipSync(Buffer.from(text, 'base64')).toString('utf8')) as T;
}

/** Object names: readable in `docker ps`, unique per engine because job addresses are. */
export const names = {
  network: (job: string) => `ocg-${job}`,
  container: (job: string, op: string, attempt: number) => `ocg-${job}-${op}-${attempt}`,
  volume: (job: string, name: string) => `ocg-${job}-v-${name}`,
  note: (job: string, suffix: string) => `ocg-${job}-n-${suffix}`,
};
