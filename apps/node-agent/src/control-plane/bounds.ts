import type { FinishJobRequest, NodeOpReport } from '@ocg/contracts';

/**
 * What deployment-manager accepts in a report or a finish (its contract's
 * limits). A node cuts what it sends to fit, so no op output, reason or
 * result can make the control plane refuse a job's end and lose the job.
 */
export const REPORT_LIMITS = {
  reasonChars: 4000,
  groupChars: 200,
  /** One captured value: a log line is at most this long anyway. */
  resultValueChars: 16 * 1024,
  /** Every captured value of a job together. */
  resultBytes: 1024 * 1024,
  /** Past this, a finish goes without log tails (they are on the node API and the job page already). */
  finishBytes: 4 * 1024 * 1024,
};

const MARK = ' …(cut)';

/** `text` cut to `max` characters, saying so, and never splitting a surrogate pair. */
export function clip(text: string, max: number): string;
export function clip(text: string | null | undefined, max: number): string | null | undefined;
export function clip(text: string | null | undefined, max: number): string | null | undefined {
  if (text === null || text === undefined || text.length <= max) return text;
  let end = max - MARK.length;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end--;
  return text.slice(0, end) + MARK;
}

export function boundOp(op: NodeOpReport): NodeOpReport {
  const bounded = { ...op, group: clip(op.group, REPORT_LIMITS.groupChars), reason: clip(op.reason, REPORT_LIMITS.reasonChars) };
  if (op.resources) bounded.resources = op.resources.slice(0, 100).map((r) => ({ ...r, resource: clip(r.resource, 1000), target: clip(r.target, 1000) }));
  return bounded;
}

/** The finish cut to what the control plane takes: reasons, results (first values kept), then tails if still too big. */
export function boundFinish(body: FinishJobRequest): FinishJobRequest {
  const bounded: FinishJobRequest = { ...body, reason: clip(body.reason, REPORT_LIMITS.reasonChars), ops: body.ops.map(boundOp), results: boundResults(body.results) };
  if (Buffer.byteLength(JSON.stringify(bounded)) <= REPORT_LIMITS.finishBytes) return bounded;
  return { ...bounded, ops: bounded.ops.map(({ logTail: _tail, ...op }) => op) };
}

function boundResults(results: FinishJobRequest['results']): FinishJobRequest['results'] {
  let budget = REPORT_LIMITS.resultBytes;
  const out: FinishJobRequest['results'] = {};
  for (const [op, named] of Object.entries(results)) {
    out[op] = {};
    for (const [name, values] of Object.entries(named)) {
      const kept: string[] = [];
      for (const value of values) {
        const v = clip(value, REPORT_LIMITS.resultValueChars);
        budget -= Buffer.byteLength(v) + 4;
        if (budget < 0) break;
        kept.push(v);
      }
      out[op][name] = kept;
    }
  }
  return out;
}
