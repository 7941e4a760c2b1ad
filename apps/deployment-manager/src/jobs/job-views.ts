import type { JobEndpointRecord, JobOpRecord, JobRecord, JobSummaryRecord } from '@ocg/contracts';
import { iso, num } from '../db';
import type { EndpointRow, JobRow, OpRow } from './job-row';

export interface ViewSettings {
  /** Jobs are served at https://<job>[-<port>].<nodeDomain>. */
  nodeDomain: string;
  /** The gateway's public origin, for links. */
  publicUrl: string;
}

/** Rows to the DTOs of @ocg/contracts, with public URLs per ARCHITECTURE.md's host rules. */
export class JobViews {
  constructor(private readonly settings: ViewSettings) {}

  summary(j: JobRow): JobSummaryRecord {
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

  record(j: JobRow, ops: OpRow[], endpoints: EndpointRow[]): JobRecord {
    // Once the job ended its containers are gone, whatever the node said last.
    const ended = !['QUEUED', 'RUNNING'].includes(j.status);
    return { ...this.summary(j), ops: ops.map(toOp), endpoints: endpoints.map((e) => this.endpoint(e, ended)) };
  }

  /** `https://<label>.<node domain>`; the label is the job address, or `<job>-<port>` for a port. */
  url(label: string): string {
    return `https://${label}.${this.settings.nodeDomain}`;
  }

  private endpoint(e: EndpointRow, ended: boolean): JobEndpointRecord {
    return { op: e.op_id, port: e.port, url: this.url(e.host_label), status: ended ? 'OFFLINE' : e.status, updatedAt: e.updated_at.toISOString() };
  }

  private links(j: JobRow): JobSummaryRecord['links'] {
    const base = this.settings.publicUrl.replace(/\/+$/, '');
    return {
      job: `${base}/jobs/${j.address}`,
      market: `${base}/markets/${j.market_address}`,
      definition: `${base}/cas/${j.definition_cid}`,
      result: j.result_cid ? `${base}/cas/${j.result_cid}` : null,
    };
  }
}

function toOp(o: OpRow): JobOpRecord {
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
  };
}
