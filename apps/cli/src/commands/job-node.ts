/** `ocg job ops|logs`: a running job as its node sees it, through the node API. */
import type { Command } from 'commander';
import { nodeAnswer, nodeApiFor, withNodeApiOptions, type NodeApiOptions } from '../node-api';
import { fields, print, printJson, table, wholeNumber } from '../output';

interface JsonOption extends NodeApiOptions {
  json?: boolean;
}

export function registerJobNode(job: Command): void {
  withNodeApiOptions(job.command('ops <job>').description("ask the job's node for its ops now: states, exit codes, restarts and endpoints"))
    .option('--json', "print the node's answer as JSON")
    .action((address: string, options: JsonOption) => showOps(address, options));
  withNodeApiOptions(job.command('logs <job> <op>').description("print an op's retained output from the job's node"))
    .option('--tail <n>', 'only the last n lines')
    .option('--streams <list>', 'comma-separated: stdout, stderr, nodeerr (default all)')
    .option('--json', 'print {job, op, lines} as JSON')
    .action((address: string, op: string, options: JsonOption & { tail?: string; streams?: string }) => showLogs(address, op, options));
}

async function showOps(address: string, options: JsonOption): Promise<void> {
  const api = await nodeApiFor(address, options);
  const status = await nodeAnswer(api, () => api.client.GET('/job/{job}/ops', { params: { path: { job: api.job.address } } }));
  if (options.json) return printJson(status);
  const rows = status.ops.map((o) => [
    o.id,
    o.group,
    o.state,
    o.exitCode === null ? '-' : String(o.exitCode),
    String(o.restarts),
    o.endpoints.map((e) => `${e.url} ${e.status}`).join(', ') || '-',
  ]);
  print(
    `${fields([
      ['job', status.job],
      ['state', status.reason ? `${status.state} (${status.reason})` : status.state],
      ['stage', status.currentStage ?? '-'],
    ])}\n\n${table(['OP', 'GROUP', 'STATE', 'EXIT', 'RESTARTS', 'ENDPOINTS'], rows)}`,
  );
}

async function showLogs(address: string, op: string, options: JsonOption & { tail?: string; streams?: string }): Promise<void> {
  const tail = options.tail === undefined ? undefined : wholeNumber('--tail', options.tail);
  const api = await nodeApiFor(address, options);
  const query = { ...(tail === undefined ? {} : { tail }), ...(options.streams ? { streams: options.streams } : {}) };
  const logs = await nodeAnswer(api, () => api.client.GET('/job/{job}/ops/{opid}/logs', { params: { path: { job: api.job.address, opid: op }, query } }));
  if (options.json) return printJson(logs);
  if (logs.lines.length > 0) print(logs.lines.map((l) => (l.stream === 'stdout' ? l.text : `[${l.stream}] ${l.text}`)).join('\n'));
}
