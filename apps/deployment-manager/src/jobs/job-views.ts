import type { JobEndpointRecord, JobOpRecord, JobPageOpRecord, JobPageRecord, JobRecord, JobSummaryRecord } from '@ocg/contracts';
import type { ContentSeal } from '../cas/content-seal';
import { iso, num } from '../db';
import type { EndpointRow, JobRow, OpRow } from './job-row';

export interface ViewSettings {
  /** Jobs are served at https://<job>[-<port>].<nodeDomain>. */
  nodeDomain: string;
  /** Appended to job URLs unless 443. */
  nodePublicPort?: number;
  /** The gateway's public origin, for links. */
  publicUrl: string;
}

/** The columns of a job's summary and record (without ops and endpoints): what a post reads back of the row it wrote. */
export const SUMMARY_COLUMNS = [
  'address',
  'status',
  'end_reason',
  'market_address',
  'node_address',
  'poster_address',
  'price_per_second',
  'duration_seconds',
  'billed_seconds',
  'cost',
  'settled_at',
  'definition_cid',
  'result_cid',
  'exposes',
  'created_at',
  'started_at',
  'ends_at',
  'finished_at',
] as const satisfies readonly (keyof JobRow)[];
export type SummaryRow = Pick<JobRow, (typeof SUMMARY_COLUMNS)[number]>;

/** Rows to the DTOs of @ocg/contracts, with public URLs per ARCHITECTURE.md's host rules. */
export class JobViews {
  constructor(
    private readonly settings: ViewSettings,
    private readonly seal: ContentSeal,
  ) {}

  summary(j: SummaryRow): JobSummaryRecord {
    const price = Number(j.price_per_second);
    return {
      address: j.address,
      status: j.status,
      reason: j.end_reason,
      market: j.market_address,
      node: j.node_address,
      poster: j.poster_address,
      pricePerSecond: price,
      durationSeconds: j.duration_seconds,
      totalPrice: price * j.duration_seconds,
      billedSeconds: j.billed_seconds,
      cost: num(j.cost),
      settlement: j.settled_at ? 'settled' : 'open',
      definitionCid: j.definition_cid,
      resultCid: j.result_cid,
      url: j.exposes ? this.url(j.address) : null,
      links: this.links(j),
      createdAt: j.created_at.toISOString(),
      startedAt: iso(j.started_at),
      endsAt: iso(j.ends_at),
      finishedAt: iso(j.finished_at),
      settledAt: iso(j.settled_at),
    };
  }

  record(j: SummaryRow, ops: OpRow[], endpoints: EndpointRow[]): JobRecord {
    // Once the job ended its containers are gone, whatever the node said last.
    const ended = !['QUEUED', 'RUNNING'].includes(j.status);
    return { ...this.summary(j), ops: ops.map(toOp), endpoints: endpoints.map((e) => this.endpoint(e, ended)) };
  }

  /**
   * The record for the job page: every op of the definition (pending until a
   * node reports on it), with its log tail. Only the poster's view carries
   * output, reasons, content ids and private endpoints (ADR 0036).
   */
  page(j: JobRow, ops: OpRow[], endpoints: EndpointRow[], poster: boolean): JobPageRecord {
    const definition = this.seal.openDefinition(j.address, j.definition);
    const reported = new Map(ops.map((o) => [o.op_id, o]));
    const planned = definedOps(definition).filter((o) => !reported.has(o.id));
    const all = [...ops.map((o) => ({ ...toOp(o), logTail: o.log_tail ?? [] })), ...planned].sort((a, b) => a.opIndex - b.opIndex);
    const record = withoutLinks(this.record(j, [], endpoints));
    if (poster) return { ...record, view: 'poster', ops: all };
    const hidden = privateOps(definition);
    const shown = record.endpoints.filter((e) => !hidden.has(e.op));
    return {
      ...record,
      view: 'public',
      reason: null,
      poster: null,
      definitionCid: null,
      resultCid: null,
      url: record.url !== null && !publicOpExposes(definition, hidden) ? null : record.url,
      // Resource names come from the definition: the public sees that an op fetches, not what.
      ops: all.map(({ resources: _resources, ...o }) => ({ ...o, reason: null, logTail: [] })),
      endpoints: shown,
    };
  }

  /** `https://<label>.<node domain>`; the label is the job address, or `<job>-<port>` for a port. */
  url(label: string): string {
    const port = this.settings.nodePublicPort && this.settings.nodePublicPort !== 443 ? `:${this.settings.nodePublicPort}` : '';
    return `https://${label}.${this.settings.nodeDomain}${port}`;
  }

  private endpoint(e: EndpointRow, ended: boolean): JobEndpointRecord {
    return { op: e.op_id, port: e.port, url: this.url(e.host_label), status: ended ? 'OFFLINE' : e.status, updatedAt: e.updated_at.toISOString() };
  }

  private links(j: SummaryRow): JobSummaryRecord['links'] {
    const base = this.settings.publicUrl.replace(/\/+$/, '');
    return {
      job: `${base}/jobs/${j.address}`,
      market: `${base}/markets/${j.market_address}`,
      definition: `${base}/cas/${j.definition_cid}`,
      result: j.result_cid ? `${base}/cas/${j.result_cid}` : null,
    };
  }
}

export function toOp(o: OpRow): JobOpRecord {
  return {
    id: o.op_id,
    group: o.grp,
    opIndex: o.op_index,
    status: o.status,
    exitCode: o.exit_code,
    reason: o.reason,
    restarts: o.restarts,
    startedAt: iso(o.started_at),
    endedAt: iso(o.ended_at),
    ...(o.resources ? { activity: o.activity, resources: o.resources } : {}),
  };
}

/** The page record has no links: the page makes its own, relative ones. */
function withoutLinks<T extends { links: unknown }>(record: T): Omit<T, 'links'> {
  const copy: Partial<T> = { ...record };
  delete copy.links;
  return copy as Omit<T, 'links'>;
}

type DefinedOp = { id: string; type?: string; args?: { private?: boolean; expose?: unknown[] }; execution?: { group?: string | null } };
const opsOf = (definition: Record<string, unknown>): DefinedOp[] => (definition as { ops?: DefinedOp[] }).ops ?? [];

/** Ops whose endpoints the poster alone may see (`private: true`). */
function privateOps(definition: Record<string, unknown>): Set<string> {
  return new Set(
    opsOf(definition)
      .filter((op) => op.args?.private === true)
      .map((op) => op.id),
  );
}

/** The job's own URL serves the first exposed port of an op that is not private: none, no URL to show. */
function publicOpExposes(definition: Record<string, unknown>, hidden: Set<string>): boolean {
  return opsOf(definition).some((op) => !hidden.has(op.id) && (op.args?.expose ?? []).length > 0);
}

/** The ops of the stored (normalized) definition, as they read before a node reports on them. */
function definedOps(definition: Record<string, unknown>): JobPageOpRecord[] {
  return opsOf(definition).map((op, opIndex) => ({
    id: op.id,
    group: op.execution?.group ?? op.id,
    opIndex,
    status: 'pending',
    exitCode: null,
    reason: null,
    restarts: 0,
    startedAt: null,
    endedAt: null,
    logTail: [],
  }));
}
