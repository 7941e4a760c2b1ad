/** `ocg job get [--watch]|stop|extend|list|node-header`: a posted job, its result, its money and time, its node API header. */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { JobRecord, JobSummaryRecord, ListJobsResponse } from '@ocg/contracts';
import { answer, answerRetrying, dataOf, gatewayFrom, isTransient, reach, withGatewayOptions, type Gateway, type GatewayOptions } from '../gateway';
import { isFinal, jobEvents, JobProgress } from '../job-events';
import { JOB_LIST_HEADER, describeJob, jobRow, type JobResult } from '../job-view';
import { nodeApiHeader } from '../node-header';
import { CliError, credits, duration, fields, localTime, print, printJson, table, wholeNumber } from '../output';
import { note, waitWithEvents } from '../progress';

interface JsonOption extends GatewayOptions {
  json?: boolean;
}

export function registerJobManage(job: Command): void {
  withGatewayOptions(job.command('get <job>').description('show a job, its ops and endpoints, and its result once it ended'))
    .option('--json', 'print {job, result} as JSON: the job record and the stored result (null until there is one); with --watch, each event as a line of JSON')
    .option('--watch', "follow the job's events until it ends (status, op states, image pulls, endpoints up and down), then show it")
    .action((address: string, options: JsonOption & { watch?: boolean }) => (options.watch ? watchJob(address, options) : getJob(address, options)));
  withGatewayOptions(job.command('stop <job>').description('stop a job now; billing ends now and the rest of the hold is released'))
    .option('--json', 'print the job record as JSON')
    .action((address: string, options: JsonOption) => stopJob(address, options));
  withGatewayOptions(job.command('extend <job>').description('add time to a queued or running job; the added time is held at once'))
    .requiredOption('--minutes <minutes>', 'minutes to add')
    .option('--json', 'print the job record as JSON')
    .action((address: string, options: JsonOption & { minutes: string }) => extendJob(address, options));
  withGatewayOptions(job.command('node-header <job>').description("print a signed Authorization header for the job's node API (good for that node and job, 5 minutes)"))
    .option('--json', 'print {header, node, job, timestamp} as JSON')
    .action((address: string, options: JsonOption) => nodeHeader(address, options));
  withGatewayOptions(job.command('list').description('list your jobs, newest first'))
    .option('--limit <n>', 'jobs per page, 1 to 200', '20')
    .option('--all', 'every job: follows the pages to the end')
    .option('--json', 'print {jobs, nextCursor} as JSON')
    .action((options: JsonOption & { limit: string; all?: boolean }) => listJobs(options));
}

/**
 * A line per event (stderr, with the time) and a spinner with the job's
 * progress on a terminal; with --json each event as a line of JSON on
 * stdout. Once the job ended, it is shown as `get` shows it.
 */
async function watchJob(address: string, options: JsonOption): Promise<void> {
  const gateway = gatewayFrom(options);
  const progress = new JobProgress();
  await waitWithEvents({ what: `following ${address}`, timeoutMs: Infinity, timeoutMessage: () => '', quietOffTerminal: true }, async (status, signal) => {
    const blip = (why: string) => status(`${progress.text()}; ${why}`);
    for await (const event of jobEvents(gateway, address, signal, blip)) {
      progress.apply(event);
      const line = progress.line(event);
      if (options.json) print(JSON.stringify(event));
      else if (line) note(`${localTime(new Date().toISOString())}  ${line}`);
      status(progress.text());
    }
  });
  if (!options.json) await getJob(address, options);
}

async function getJob(address: string, options: JsonOption): Promise<void> {
  const gateway = gatewayFrom(options);
  const job = await answer(gateway, () => gateway.client.GET('/jobs/{job}', { params: { path: { job: address } } }));
  const result = job.resultCid ? await readResult(gateway, job.resultCid) : null;
  if (options.json) return printJson({ job, result });
  print(describeJob(job, result, process.stdout.isTTY === true));
}

/** The result the node stored: JSON text in the CAS. */
async function readResult(gateway: Gateway, cid: string): Promise<JobResult> {
  const text = await answer(gateway, () => gateway.client.GET('/cas/{cid}', { params: { path: { cid } }, parseAs: 'text' }));
  try {
    return JSON.parse(text) as JobResult;
  } catch {
    throw new CliError(`the result ${cid} is not JSON; read it with GET ${gateway.url}/cas/${cid}`);
  }
}

async function nodeHeader(address: string, options: JsonOption): Promise<void> {
  const made = await nodeApiHeader(gatewayFrom(options), address);
  if (options.json) return printJson(made);
  print(made.header);
}

/** Asking again is safe (stopping a stopped job answers it again), so a stop is tried this often before it is reported as not taken. */
const STOP_ATTEMPTS = 3;

/**
 * Stops the job and says so: the record (--json) or its description. A stop
 * is only reported once the service answers the job ended; an answer without
 * a record, or with the job still running, is asked again, then reported as
 * an error (exit 1) rather than left unsaid.
 */
async function stopJob(address: string, options: JsonOption): Promise<void> {
  const gateway = gatewayFrom(options);
  let job: JobRecord | undefined;
  for (let attempt = 1; attempt <= STOP_ATTEMPTS && !isFinal(job?.status); attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, 500 * attempt));
    const reply = await reach(gateway, () => gateway.client.POST('/jobs/{job}/stop', { params: { path: { job: address } } }));
    if (reply.response.ok && reply.data === undefined) continue; // an answer without its record: asked again
    if (!isTransient(reply.response.status)) job = dataOf(reply);
  }
  if (!job || !isFinal(job.status)) {
    const now = job?.status ?? 'unknown: the gateway never answered with the job';
    throw new CliError(`the job ${address} did not stop: asked ${STOP_ATTEMPTS} times, it is still ${now}. See it with ocg job get ${address}`);
  }
  if (options.json) return printJson(job);
  print(describeJob(job));
}

async function extendJob(address: string, options: JsonOption & { minutes: string }): Promise<void> {
  const seconds = wholeNumber('--minutes', options.minutes, 1) * 60;
  const gateway = gatewayFrom(options);
  // One Idempotency-Key per invocation: a retry after a lost answer extends once, not twice.
  const key = randomUUID();
  const job = await answerRetrying(gateway, () =>
    gateway.client.POST('/jobs/{job}/extend', { params: { path: { job: address }, header: { 'Idempotency-Key': key } }, body: { seconds } }),
  );
  if (options.json) return printJson(job);
  print(
    fields([
      ['job', job.address],
      ['added', duration(seconds)],
      ['duration', duration(job.durationSeconds)],
      ['total price', `${credits(job.totalPrice)} (held)`],
      ['ends', job.endsAt ? localTime(job.endsAt) : 'its duration counts from when a node runs it'],
    ]),
  );
}

async function listJobs(options: JsonOption & { limit: string; all?: boolean }): Promise<void> {
  const limit = wholeNumber('--limit', options.limit, 1);
  const gateway = gatewayFrom(options);
  const listed = await pages(gateway, limit, Boolean(options.all));
  if (options.json) return printJson(listed);
  if (listed.jobs.length === 0) return print('no jobs yet: post one with ocg job post --file job.json --market <market>');
  print(table(JOB_LIST_HEADER, listed.jobs.map(jobRow)));
  if (listed.nextCursor) print('(more jobs: ocg job list --all)');
}

/** One page, or with `all` every page by nextCursor, as one list (nextCursor then null). */
async function pages(gateway: Gateway, limit: number, all: boolean): Promise<ListJobsResponse> {
  const jobs: JobSummaryRecord[] = [];
  let cursor: string | undefined;
  for (;;) {
    const query = { limit, ...(cursor ? { cursor } : {}) };
    const page = await answer(gateway, () => gateway.client.GET('/jobs', { params: { query } }));
    jobs.push(...page.jobs);
    if (!page.nextCursor || !all) return { jobs, nextCursor: page.nextCursor };
    cursor = page.nextCursor;
  }
}
