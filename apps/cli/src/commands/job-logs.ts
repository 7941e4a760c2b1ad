/** `ocg job logs`: the ops' output from the job's node, all ops interleaved by time, followed live with --follow. */
import type { Command } from 'commander';
import type { GetNodeOpLogsResponse, NodeLogLine } from '@ocg/contracts';
import { followOpLog } from '../log-stream';
import { colourWanted, logLineFormat, type LogLineFormat } from '../log-format';
import { nodeAnswer, nodeApiFor, withNodeApiOptions, type NodeApi, type NodeApiOptions } from '../node-api';
import { CliError, collect, print, printJson, wholeNumber } from '../output';

interface LogsOptions extends NodeApiOptions {
  op?: string;
  follow?: boolean;
  since?: string;
  tail?: string;
  stream?: string[];
  streams?: string;
  json?: boolean;
}

const STREAMS = ['stdout', 'stderr', 'nodeerr'];
const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function registerJobLogs(job: Command): void {
  withNodeApiOptions(job.command('logs <job> [op]').description("print the ops' output from the job's node, every op interleaved by time; live with --follow"))
    .option('--op <id>', 'only this op (the same as the [op] argument)')
    .option('-f, --follow', 'go on printing new lines as they come, until every op shown has ended')
    .option('--since <when>', 'only lines from the last 30s, 10m, 2h or 1d, or since an RFC 3339 time')
    .option('--tail <n>', 'only the last n lines of each op (then live ones with --follow)')
    .option('--stream <name>', 'only this stream: stdout, stderr or nodeerr (repeatable; default all)', collect)
    .option('--streams <list>', 'comma-separated streams, as --stream')
    .option('--json', "print the node's answer (with --follow: one JSON object per line, with its op)")
    .action((address: string, op: string | undefined, options: LogsOptions) => showLogs(address, op, options));
}

async function showLogs(address: string, opArgument: string | undefined, options: LogsOptions): Promise<void> {
  if (opArgument && options.op && opArgument !== options.op) throw new CliError(`two ops named: ${opArgument} and --op ${options.op}; name one`);
  const query = {
    ...(options.tail === undefined ? {} : { tail: wholeNumber('--tail', options.tail) }),
    ...streamsOf(options),
    ...(options.since === undefined ? {} : { since: sinceTime(options.since) }),
  };
  const api = await nodeApiFor(address, options);
  const named = opArgument ?? options.op;
  const ops = named ? [named] : (await nodeAnswer(api, () => api.client.GET('/job/{job}/ops', { params: { path: { job: api.job.address } } }))).ops.map((o) => o.id);
  const answers = await Promise.all(
    ops.map((opid) => nodeAnswer(api, () => api.client.GET('/job/{job}/ops/{opid}/logs', { params: { path: { job: api.job.address, opid }, query } }))),
  );
  const format = logLineFormat(ops, { colour: !options.json && colourWanted(process.stdout.isTTY === true) });
  if (options.json && !options.follow) return printJson(named ? answers[0] : { job: api.job.address, logs: answers });
  const show = options.json ? (op: string, line: NodeLogLine) => print(JSON.stringify({ op, ...line })) : (op: string, line: NodeLogLine) => print(format.line(op, line));
  for (const { op, line } of byTime(answers)) show(op, line);
  if (options.follow) await followAll(api, answers, { streams: query.streams, since: query.since }, show, format);
}

/** Every op's stream at once, each from where its answer ended; the first that fails ends them all. */
async function followAll(
  api: NodeApi,
  answers: GetNodeOpLogsResponse[],
  query: { streams?: string; since?: string },
  show: (op: string, line: NodeLogLine) => void,
  format: LogLineFormat,
): Promise<void> {
  const stop = new AbortController();
  const say = (text: string) => process.stderr.write(`${format.note(text)}\n`);
  try {
    await Promise.all(
      answers.map(({ op, lastSeq }) =>
        followOpLog(
          api,
          op,
          { ...query, after: lastSeq },
          {
            line: (line) => show(op, line),
            missed: (count) => say(`op ${op}: ${count} line${count === 1 ? '' : 's'} missed: they left the node's log buffer before they could be read`),
            reconnected: (ms, why) => say(`op ${op}: reconnected after ${(ms / 1000).toFixed(1)} s (${why}); going on after the last line shown`),
          },
          stop.signal,
        ),
      ),
    );
  } finally {
    stop.abort();
  }
}

/** Lines of every op in time order; an op's own lines keep their order. */
function byTime(answers: GetNodeOpLogsResponse[]): { op: string; line: NodeLogLine }[] {
  const all = answers.flatMap(({ op, lines }) => lines.map((line) => ({ op, line, at: Date.parse(line.time) })));
  return all.sort((a, b) => a.at - b.at).map(({ op, line }) => ({ op, line }));
}

function streamsOf(options: LogsOptions): { streams?: string } {
  const names = [...(options.stream ?? []), ...(options.streams?.split(',') ?? [])].map((s) => s.trim()).filter(Boolean);
  const bad = names.filter((n) => !STREAMS.includes(n));
  if (bad.length > 0) throw new CliError(`unknown stream ${bad.join(', ')}: stdout, stderr or nodeerr`);
  return names.length > 0 ? { streams: [...new Set(names)].join(',') } : {};
}

/** `10m` ago, or an RFC 3339 time, as the node's `since`. */
function sinceTime(text: string, now = Date.now()): string {
  const ago = /^(\d+)([smhd])$/.exec(text.trim());
  if (ago) return new Date(now - Number(ago[1]) * UNITS[ago[2]]).toISOString();
  const at = Date.parse(text);
  if (/^\d{4}-\d\d-\d\d/.test(text) && !Number.isNaN(at)) return new Date(at).toISOString();
  throw new CliError(`--since takes a duration such as 30s, 10m, 2h or 1d, or an RFC 3339 time, got "${text}"`);
}
