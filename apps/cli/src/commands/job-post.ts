/**
 * `ocg job post --file F --market M [--timeout minutes] [--wait] [--json]`:
 * checks the definition locally, uploads it to the CAS, posts the job by its
 * content id, prints what it costs and where it lives, then follows its
 * events until a node runs it (and, with --wait, until its endpoint answers).
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { JobRecord } from '@ocg/contracts';
import { validate } from '@ocg/job-definition';
import { loadDefinition } from '../definition-file';
import { endpointProbe, type Probe } from '../endpoint';
import { answerRetrying, gatewayFrom, reach, withGatewayOptions, type Gateway, type GatewayOptions } from '../gateway';
import { isFinal, JobWatch } from '../job-events';
import { perSecond } from '../job-view';
import { CliError, credits, duration, fields, print, printJson, wholeNumber } from '../output';
import { waitWithEvents, waitWithProgress } from '../progress';

interface PostOptions extends GatewayOptions {
  file: string;
  market: string;
  timeout?: string;
  wait?: boolean;
  json?: boolean;
  timeoutWait: string;
  pollInterval: string;
  ca?: string;
  connectTo?: string;
}

type Waits = { timeoutMs: number; intervalMs: number };

/** Labels line up across the lines printed before and after the wait. */
const LABEL_WIDTH = 'price per second'.length;
const line = (label: string, value: string) => fields([[label.padEnd(LABEL_WIDTH), value]]);

export function registerJobPost(job: Command): void {
  withGatewayOptions(
    job
      .command('post')
      .description('post a job definition to a market and wait until a node runs it')
      .requiredOption('--file <path>', 'job definition file (JSON); checked locally first')
      .requiredOption('--market <market>', 'market name (e.g. "RTX 4090") or address')
      .option('--timeout <minutes>', "how long the job may run (default: the market's default, e.g. 120 minutes)")
      .option('--wait', 'also wait until the service URL answers (not 404)')
      .option('--timeout-wait <seconds>', 'give up each wait (for RUNNING, for the endpoint) after this long', '600')
      .option('--poll-interval <ms>', '--wait: how often to ask the service URL (the job itself is followed by its events)', '2000')
      .option('--ca <file>', 'PEM of a CA to trust for the service URL (or set NODE_EXTRA_CA_CERTS)')
      .option('--connect-to <host:port>', "--wait: connect here instead of the service URL's own address (local stacks)")
      .option('--json', 'print the job record as JSON (progress still goes to stderr)'),
  ).action((options: PostOptions) => postJob(options));
}

async function postJob(options: PostOptions): Promise<void> {
  const text = checkedDefinition(options.file, Boolean(options.json));
  const durationSeconds = options.timeout === undefined ? undefined : wholeNumber('--timeout', options.timeout, 1) * 60;
  const waits = { timeoutMs: wholeNumber('--timeout-wait', options.timeoutWait, 1) * 1000, intervalMs: wholeNumber('--poll-interval', options.pollInterval, 1) };
  const probe = options.wait ? endpointProbe(options) : undefined;
  const gateway = gatewayFrom(options);
  const upload = await answerRetrying(gateway, () => gateway.client.POST('/cas', { body: { content: text } }));
  const posted = await answerRetrying(gateway, postRequest(gateway, { definitionCid: upload.cid, market: options.market, durationSeconds }));
  if (!options.json) print(await postedLines(gateway, posted));
  await follow(gateway, posted, options, waits, probe);
}

/**
 * Follows the job's events until RUNNING, then (--wait) until the endpoint
 * answers; Ctrl-C says the job lives on, since that is easy to miss.
 */
async function follow(gateway: Gateway, posted: JobRecord, options: PostOptions, waits: Waits, probe?: Probe): Promise<void> {
  let latest = posted;
  // Once a job exists, a script gets its record even when a wait fails: the address is what it needs next.
  const report = () => options.json && printJson(latest);
  const interrupted = () => {
    report();
    process.stderr.write(`\nocg: interrupted; the job ${posted.address} stays posted, its price held: ocg job stop ${posted.address} stops it\n`);
    process.exit(1);
  };
  process.once('SIGINT', interrupted);
  const watch = new JobWatch(gateway, posted.address);
  try {
    latest = await untilRunning(gateway, watch, posted.address, waits);
    if (!options.json) print(line('status', latest.status));
    if (latest.status === 'RUNNING' && probe && latest.url) await untilAnswering(probe, latest.url, waits, Boolean(options.json), watch);
  } finally {
    watch.close();
    process.removeListener('SIGINT', interrupted);
    report();
  }
}

/** The definition's text, once it passed the same checks the service makes; otherwise nothing is posted. */
function checkedDefinition(file: string, json: boolean): string {
  const loaded = loadDefinition(file);
  if ('problem' in loaded) throw new CliError(`${loaded.problem}\nnothing was posted`);
  const { valid, errors, warnings } = validate(loaded.definition);
  const issue = (label: string) => (i: { path: string; message: string }) => `  ${label} ${i.path || '(root)'}: ${i.message}`;
  if (!valid) throw new CliError([`invalid job definition in ${file}; nothing was posted:`, ...errors.map(issue('error')), ...warnings.map(issue('warning'))].join('\n'));
  if (warnings.length > 0 && !json) process.stderr.write(`${warnings.map(issue('warning')).join('\n')}\n`);
  return loaded.text;
}

/** One Idempotency-Key per invocation: a retried call answers the same job instead of posting another. */
function postRequest(gateway: Gateway, body: { definitionCid: string; market: string; durationSeconds?: number }) {
  const key = randomUUID();
  return () => gateway.client.POST('/jobs', { body, params: { header: { 'Idempotency-Key': key } } });
}

async function postedLines(gateway: Gateway, job: JobRecord): Promise<string> {
  return [
    line('network', `${gateway.network} (${gateway.url})`),
    line('wallet', job.poster),
    line('balances', await balances(gateway)),
    line('price per second', perSecond(job.pricePerSecond)),
    line('total price', `${credits(job.totalPrice)} for ${duration(job.durationSeconds)}, held from the balance`),
    line('service URL', job.url ?? 'none (the job exposes no port)'),
    line('job', job.address),
    line('job link', job.links.job),
    line('market link', job.links.market),
    line('definition', job.links.definition),
  ].join('\n');
}

/** After the post, so the job's hold shows; a key without credits:read still posts. */
async function balances(gateway: Gateway): Promise<string> {
  const reply = await reach(gateway, () => gateway.client.GET('/credits/balance'));
  if (!reply.data) return `unknown (${reply.response.status === 403 ? 'the key lacks credits:read' : `HTTP ${reply.response.status}`})`;
  return `${credits(reply.data.available)} available, ${credits(reply.data.held)} held`;
}

/** The job once a node runs it (or it already ended well); an error when it fails, stops or the wait runs out. */
async function untilRunning(gateway: Gateway, watch: JobWatch, address: string, waits: Waits): Promise<JobRecord> {
  const status = await waitWithEvents(
    {
      what: 'waiting for a node of the market to run the job',
      timeoutMs: waits.timeoutMs,
      timeoutMessage: (s, last) =>
        `the job is still ${last || 'QUEUED'} after ${s} s: no node of the market has claimed it.\n` +
        `It stays queued, its price held, until a node claims it: see it with ocg job get ${address}, or stop it with ocg job stop ${address}`,
    },
    (shown, signal) => watch.until((p) => (p.status && p.status !== 'QUEUED' ? p.status : undefined), shown, signal),
  );
  if (status === 'FAILED' || status === 'STOPPED')
    throw new CliError(`the job ${status === 'FAILED' ? 'failed' : 'was stopped'}: ${watch.progress.reason ?? 'no reason given'} (ocg job get ${address})`);
  return answerRetrying(gateway, () => gateway.client.GET('/jobs/{job}', { params: { path: { job: address } } }));
}

/** Probes the URL (the ingress's answer is what counts) while the events show what the node is doing; the job ending stops the wait. */
async function untilAnswering(probe: Probe, url: string, waits: Waits, json: boolean, watch: JobWatch): Promise<void> {
  const started = Date.now();
  const status = await waitWithProgress(
    {
      what: `waiting for ${url} to answer`,
      ...waits,
      timeoutMessage: (s, last) =>
        `${url} did not answer within ${s} s (last: ${last || 'nothing'}); the job keeps running. A model download can take about 10 minutes: try again with a larger --timeout-wait`,
    },
    async (report) => {
      const { status, reason } = watch.progress;
      if (isFinal(status)) throw new CliError(`the job ended (${status}${reason ? `: ${reason}` : ''}) before ${url} answered`);
      const got = await probe(url);
      const doing = watch.text() === status ? '' : `; ${watch.text()}`;
      report(`${'status' in got ? `HTTP ${got.status}` : got.error}${doing}`);
      return 'status' in got && got.status !== 404 ? got.status : undefined;
    },
  );
  if (!json) print(line('endpoint', `answering (HTTP ${status} after ${Math.round((Date.now() - started) / 1000)} s)`));
}
