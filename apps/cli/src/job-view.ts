/** How a job reads for a person: its fields, ops, endpoints and result. */
import type { JobRecord, JobSummaryRecord } from '@ocg/contracts';
import { credits, duration, fields, localTime, table } from './output';
import { resourcesTable } from './resource-progress';

/** What the node stored in the CAS when the job ended (`GET /cas/{resultCid}`). */
export interface JobResult {
  job?: string;
  status?: string;
  reason?: string | null;
  /** Op id → result name → captured values, in order. */
  results?: Record<string, Record<string, string[]>>;
}

/** `0.000100 credits (100 units)`: credits for people, units as the API counts. */
export const perSecond = (units: number): string => `${credits(units)} (${units} units)`;

/** `bars`: remote resources' progress as bars (a terminal). */
export function describeJob(job: JobRecord, result?: JobResult | null, bars = false): string {
  const sections = [fields(jobFields(job))];
  if (job.ops.length > 0) sections.push(opsTable(job));
  const resources = resourcesTable(job, bars);
  if (resources) sections.push(resources);
  if (job.endpoints.length > 0)
    sections.push(
      table(
        ['ENDPOINT', 'PORT', 'STATUS', 'URL'],
        job.endpoints.map((e) => [e.op, String(e.port), e.status, e.url]),
      ),
    );
  if (result) sections.push(resultsTable(result));
  return sections.join('\n\n');
}

function jobFields(job: JobRecord): [string, string | undefined][] {
  const billed = job.billedSeconds !== null && job.cost !== null ? `${duration(job.billedSeconds)}, ${credits(job.cost)} (${job.settlement})` : undefined;
  return [
    ['job', job.address],
    ['status', job.reason ? `${job.status} (${job.reason})` : job.status],
    ['market', job.market],
    ['node', job.node ?? '-'],
    ['wallet', job.poster],
    ['price per second', perSecond(job.pricePerSecond)],
    ['duration', duration(job.durationSeconds)],
    ['total price', `${credits(job.totalPrice)}${billed ? '' : ' (held)'}`],
    ['billed', billed],
    ['service URL', job.url ?? 'none (the job exposes no port)'],
    ['created', localTime(job.createdAt)],
    ['started', job.startedAt ? localTime(job.startedAt) : undefined],
    ['ends', job.endsAt && !job.finishedAt ? localTime(job.endsAt) : undefined],
    ['finished', job.finishedAt ? localTime(job.finishedAt) : undefined],
    ['job link', job.links.job],
    ['market link', job.links.market],
    ['definition', job.links.definition],
    ['result', job.links.result ?? undefined],
  ];
}

function opsTable(job: JobRecord): string {
  const rows = job.ops.map((op) => [
    op.id,
    op.group ?? '-',
    op.activity ? `${op.status} (${op.activity})` : op.status,
    op.exitCode === null ? '-' : String(op.exitCode),
    String(op.restarts),
    localTime(op.startedAt),
    localTime(op.endedAt),
    op.reason ?? '',
  ]);
  return table(['OP', 'GROUP', 'STATUS', 'EXIT', 'RESTARTS', 'STARTED', 'ENDED', 'REASON'], rows);
}

function resultsTable(result: JobResult): string {
  const rows: string[][] = [];
  for (const [op, named] of Object.entries(result.results ?? {})) {
    for (const [name, values] of Object.entries(named)) rows.push([op, name, values.join(', ')]);
  }
  if (rows.length === 0) return 'results  none captured';
  return table(['OP', 'RESULT', 'VALUES'], rows);
}

/** One row per job for `job list`. */
export function jobRow(job: JobSummaryRecord): string[] {
  return [job.address, job.status, job.market, credits(job.pricePerSecond), duration(job.durationSeconds), localTime(job.createdAt)];
}

export const JOB_LIST_HEADER = ['JOB', 'STATUS', 'MARKET', 'PRICE/S', 'DURATION', 'CREATED'];
