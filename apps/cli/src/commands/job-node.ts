/** `ocg job ops|op|group`: a running job's ops as its node sees them, watched and controlled through the node API. */
import type { Command } from 'commander';
import type { NodeJobStatus, NodeOpStatus } from '@ocg/contracts';
import { NODE_BACKOFF_MS, NODE_GIVE_UP_MS, nodeAnswer, nodeAnswerOrWhy, nodeApiFor, withNodeApiOptions, type NodeApi, type NodeApiOptions } from '../node-api';
import { CliError, fields, localTime, print, printJson, table, wholeNumber } from '../output';
import { registerJobLogs } from './job-logs';

interface JsonOption extends NodeApiOptions {
  json?: boolean;
}

interface OpsOptions extends JsonOption {
  watch?: boolean;
  interval: string;
}

type Action = 'stop' | 'restart';
const DONE: Record<Action, string> = { stop: 'stopped', restart: 'restarted' };

export function registerJobNode(job: Command): void {
  withNodeApiOptions(job.command('ops <job>').description("ask the job's node for its ops: states, exit codes, restarts and endpoints; live with --watch"))
    .option('--watch', 'go on showing changes until the job ends (redrawn on a terminal, a line per change otherwise)')
    .option('--interval <ms>', 'how often --watch asks the node', '2000')
    .option('--json', "print the node's answer as JSON (with --watch: one line per change)")
    .action((address: string, options: OpsOptions) => (options.watch ? watchOps(address, options) : showOps(address, options)));
  registerJobLogs(job);
  const op = job.command('op').description("stop or restart one op of a running job, through the job's node");
  const group = job.command('group').description("stop or restart a group (a stage) of a running job, through the job's node");
  for (const action of ['stop', 'restart'] as const) {
    withNodeApiOptions(op.command(`${action} <job> <op>`).description(action === 'stop' ? 'stop one running op' : 'run one op again in a new container (its log goes on)'))
      .option('--json', "print the node's answer as JSON")
      .action((address: string, id: string, options: JsonOption) => controlOp(action, address, id, options));
    withNodeApiOptions(
      group
        .command(`${action} <job> <group>`)
        .description(action === 'stop' ? 'stop every running op of the group; its waiting ones never start' : 'run every op of the group afresh'),
    )
      .option('--json', "print the node's answer as JSON")
      .action((address: string, name: string, options: JsonOption) => controlGroup(action, address, name, options));
  }
}

const readOps = (api: NodeApi) => nodeAnswer(api, () => api.client.GET('/job/{job}/ops', { params: { path: { job: api.job.address } } }));

async function showOps(address: string, options: JsonOption): Promise<void> {
  const api = await nodeApiFor(address, options);
  const status = await readOps(api);
  if (options.json) return printJson(status);
  print(render(status));
}

function render(status: NodeJobStatus): string {
  const rows = status.ops.map((o) => [
    o.id,
    o.group,
    o.state,
    o.exitCode === null ? '-' : String(o.exitCode),
    String(o.restarts),
    o.endpoints.map((e) => `${e.url} ${e.status}`).join(', ') || '-',
  ]);
  return `${fields([
    ['job', status.job],
    ['state', status.reason ? `${status.state} (${status.reason})` : status.state],
    ['stage', status.currentStage ?? '-'],
  ])}\n\n${table(['OP', 'GROUP', 'STATE', 'EXIT', 'RESTARTS', 'ENDPOINTS'], rows)}`;
}

/** Asks every --interval until the job ended: a terminal sees the table redrawn, anything else a line per change. */
async function watchOps(address: string, options: OpsOptions): Promise<void> {
  const interval = wholeNumber('--interval', options.interval, 100);
  const api = await nodeApiFor(address, options);
  const redraw = process.stdout.isTTY === true && !options.json;
  let previous: NodeJobStatus | undefined;
  for (;;) {
    const status = await readOpsPatiently(api, (line) => process.stderr.write(`${localTime(new Date().toISOString())}  ${line}\n`));
    if (JSON.stringify(status) !== JSON.stringify(previous)) {
      if (options.json) print(JSON.stringify(status));
      else if (redraw) process.stdout.write(`\x1b[H\x1b[2J${render(status)}\n\n(${localTime(new Date().toISOString())}; Ctrl-C stops watching)\n`);
      else print(previous ? changes(previous, status).join('\n') : render(status));
    }
    previous = status;
    if (status.state !== 'running') return;
    await new Promise((r) => setTimeout(r, interval));
  }
}

/**
 * `readOps`, asked again with backoff while the node cannot be reached, as
 * `logs --follow` does; `say` hears when an outage starts and when it ends.
 */
async function readOpsPatiently(api: NodeApi, say: (line: string) => void): Promise<NodeJobStatus> {
  let down: number | undefined;
  for (let attempt = 0; ; attempt++) {
    const got = await nodeAnswerOrWhy(() => api.client.GET('/job/{job}/ops', { params: { path: { job: api.job.address } } }));
    if ('data' in got) {
      if (down !== undefined) say(`the node answers again after ${((Date.now() - down) / 1000).toFixed(1)} s`);
      return got.data;
    }
    if (down === undefined) {
      down = Date.now();
      say(`cannot reach the node API at ${api.url} (${got.why}); asking again`);
    } else if (Date.now() - down > NODE_GIVE_UP_MS) {
      throw new CliError(`cannot reach the node API at ${api.url} for ${NODE_GIVE_UP_MS / 1000} s: ${got.why}`);
    }
    await new Promise((r) => setTimeout(r, NODE_BACKOFF_MS[Math.min(attempt, NODE_BACKOFF_MS.length - 1)]));
  }
}

/** One line per change between two answers: the job's state and stage, each op's state, restarts and endpoints. */
function changes(before: NodeJobStatus, after: NodeJobStatus): string[] {
  const at = localTime(new Date().toISOString());
  const out: string[] = [];
  const was = (value: string, now: string) => `${value} -> ${now}`;
  if (before.state !== after.state) out.push(`${at}  job ${was(before.state, after.state)}${after.reason ? ` (${after.reason})` : ''}`);
  if (before.currentStage !== after.currentStage) out.push(`${at}  stage ${was(before.currentStage ?? '-', after.currentStage ?? '-')}`);
  for (const op of after.ops) {
    const old = before.ops.find((o) => o.id === op.id);
    if (!old) continue;
    if (old.state !== op.state) out.push(`${at}  op ${op.id} ${was(old.state, op.state)}${opDetail(op)}`);
    if (old.restarts !== op.restarts) out.push(`${at}  op ${op.id} restarted by its policy (${op.restarts} restarts)`);
    for (const e of op.endpoints) {
      const oldStatus = old.endpoints.find((x) => x.port === e.port)?.status;
      if (oldStatus && oldStatus !== e.status) out.push(`${at}  op ${op.id} endpoint ${e.url} ${was(oldStatus, e.status)}`);
    }
  }
  return out;
}

function opDetail(op: NodeOpStatus): string {
  const parts = [op.exitCode === null ? undefined : `exit ${op.exitCode}`, op.reason ?? undefined].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

async function controlOp(action: Action, address: string, id: string, options: JsonOption): Promise<void> {
  const api = await nodeApiFor(address, options);
  const { ops } = await readOps(api);
  const found = ops.find((o) => o.id === id);
  if (!found) throw new CliError(`job ${api.job.address} has no op ${id} (its ops: ${ops.map((o) => o.id).join(', ') || 'none'})`);
  const path = { job: api.job.address, group: found.group, opid: id };
  const done = await nodeAnswer(api, () => api.client.POST(`/job/{job}/group/{group}/operation/{opid}/${action}`, { params: { path } }));
  if (options.json) return printJson(done);
  print(outcome(`${DONE[action]} op ${id} (group ${found.group})`, done.ops));
}

async function controlGroup(action: Action, address: string, group: string, options: JsonOption): Promise<void> {
  const api = await nodeApiFor(address, options);
  const path = { job: api.job.address, group };
  const done = await nodeAnswer(api, () => api.client.POST(`/job/{job}/group/{group}/${action}`, { params: { path } }));
  if (options.json) return printJson(done);
  print(outcome(`${DONE[action]} group ${group}`, done.ops));
}

function outcome(what: string, ops: NodeOpStatus[]): string {
  const rows = ops.map((o) => [o.id, o.group, o.state, o.exitCode === null ? '-' : String(o.exitCode), String(o.restarts), o.reason ?? '-']);
  return `${what}; the ops now:\n\n${table(['OP', 'GROUP', 'STATE', 'EXIT', 'RESTARTS', 'REASON'], rows)}`;
}
