/**
 * An op's remote resources as a person reads them (`args.resources`, as its
 * node reports the fetch): a bar per resource on a terminal, numbers only
 * otherwise, so logs of scripts and CI get no control characters or blocks.
 */
import type { JobRecord, NodeResourceProgress } from '@ocg/contracts';
import { table } from './output';

const BAR_WIDTH = 20;

/** `12.0 MiB`, `512 B`. */
export function size(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let n = bytes;
  let unit = 0;
  while (n >= 1024 && unit < units.length - 1) {
    n /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${n.toFixed(1)} ${units[unit]}`;
}

/** `[########------------]`: the share done, or none when the total is not known yet. */
export function bar(done: number, total: number | null): string {
  if (total === null || total <= 0) return '';
  const filled = Math.min(BAR_WIDTH, Math.round((done / total) * BAR_WIDTH));
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
}

/** `12.0 MiB of 30.0 MiB (40%), 3/10 files`, with the bar in front when `bars`. */
export function amount(p: { bytesDone: number; bytesTotal: number | null; filesDone: number; filesTotal: number | null }, bars: boolean): string {
  const percent = p.bytesTotal ? ` (${Math.floor((p.bytesDone / p.bytesTotal) * 100)}%)` : '';
  const bytes = p.bytesTotal === null ? size(p.bytesDone) : `${size(p.bytesDone)} of ${size(p.bytesTotal)}${percent}`;
  const files = p.filesTotal === null ? '' : `, ${p.filesDone}/${p.filesTotal} files`;
  const shown = bars ? bar(p.bytesDone, p.bytesTotal) : '';
  return `${shown ? `${shown} ` : ''}${bytes}${files}`;
}

const ACTIVE: ReadonlySet<NodeResourceProgress['state']> = new Set(['waiting', 'resolving', 'fetching']);

/**
 * While any of an op's resources is still being fetched: all of them as one
 * line (`fetching resources [####--] 12.0 MiB of 30.0 MiB (40%), 3/10 files`);
 * undefined once they are all in place or failed.
 */
export function fetchLine(resources: NodeResourceProgress[] | undefined, bars: boolean): string | undefined {
  if (!resources || !resources.some((r) => ACTIVE.has(r.state))) return undefined;
  const sum = (pick: (r: NodeResourceProgress) => number | null): number | null =>
    resources.reduce<number | null>((acc, r) => (acc === null || pick(r) === null ? null : acc + (pick(r) as number)), 0);
  const total = { bytesDone: sum((r) => r.bytesDone) ?? 0, bytesTotal: sum((r) => r.bytesTotal), filesDone: sum((r) => r.filesDone) ?? 0, filesTotal: sum((r) => r.filesTotal) };
  const listing = resources.some((r) => r.state === 'resolving' || r.state === 'waiting') && total.bytesTotal === null;
  return `fetching resources ${listing ? `(listing ${resources.length === 1 ? 'it' : `${resources.length} resources`}) ` : ''}${amount(total, bars && !listing)}`;
}

/** One row per resource of each op for `ocg job get`; undefined when no op has any. */
export function resourcesTable(job: JobRecord, bars: boolean): string | undefined {
  const rows = job.ops.flatMap((op) =>
    (op.resources ?? []).map((r) => [
      op.id,
      r.resource,
      r.target,
      r.cached ? `${r.state} (cached)` : r.state,
      r.state === 'ready' && r.cached ? '-' : amount(r, bars && r.state === 'fetching'),
    ]),
  );
  return rows.length === 0 ? undefined : table(['OP', 'RESOURCE', 'TARGET', 'STATE', 'PROGRESS'], rows);
}
