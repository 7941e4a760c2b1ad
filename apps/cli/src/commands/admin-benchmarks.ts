/**
 * `ocg admin benchmarks apply --file F [--apply] [--prune] [--json]`: sends
 * benchmark templates to POST /benchmark-templates/apply and prints the
 * changes. A dry run unless --apply. The file is either
 *   - the request body: {"templates": [...], "prune"?: bool} (its dryRun is ignored: --apply decides), or
 *   - a benchmark file as pipeline templates ship them (Gemma4's benchmarks.json):
 *     an array of {variants, metrics, support_ops, ops_overrides?, timeoutSeconds?}, turned into one
 *     template per variant (slug `<--name>-<variant>`) for the --market markets (names or addresses).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  benchmarkFileToTemplates,
  isBenchmarkFile,
  type ApplyBenchmarkTemplatesRequest,
  type ApplyBenchmarkTemplatesResponse,
  type BenchmarkTemplate,
  type BenchmarkTemplateChange,
  type BenchmarkTemplateThreshold,
} from '@ocg/contracts';
import { answer, gatewayFrom, withGatewayOptions, type Gateway, type GatewayOptions } from '../gateway';
import { CliError, collect, print, printJson, table } from '../output';

interface ApplyOptions extends GatewayOptions {
  file: string;
  apply?: boolean;
  prune?: boolean;
  json?: boolean;
  name?: string;
  market: string[];
  thresholdMetric?: string;
  thresholdRule?: string;
}

/** Adds `benchmarks apply` to the `admin` command. */
export function registerAdminBenchmarks(admin: Command): void {
  const benchmarks = admin.command('benchmarks').description('benchmark templates (operator key with benchmarks:manage)');
  withGatewayOptions(
    benchmarks
      .command('apply')
      .description('compare benchmark templates with the stored benchmarks; write the changes with --apply')
      .requiredOption('--file <path>', 'the apply request body (JSON), or a benchmark file (see --name)')
      .option('--apply', 'write the changes (default: a dry run that writes nothing)')
      .option('--prune', 'remove stored benchmarks the file does not list')
      .option('--json', 'print the answer as JSON')
      .option('--name <name>', 'benchmark file only: slug prefix, e.g. gemma4 (slugs become <name>-<variant>)')
      .option('--market <market>', 'benchmark file only: a supported market, by name or address (repeat for more)', collect, [])
      .option('--threshold-metric <key>', 'benchmark file only: the metric to gate on (default: the first)')
      .option('--threshold-rule <jsonLogic>', 'benchmark file only: the JsonLogic rule, e.g. \'{">=":[{"var":"tokens_per_second"},20]}\''),
  ).action((options: ApplyOptions) => applyTemplates(options));
}

async function applyTemplates(options: ApplyOptions): Promise<void> {
  const gateway = gatewayFrom(options);
  const request = await requestFrom(readJson(options.file), options, gateway);
  const result = await answer(gateway, () =>
    gateway.client.POST('/benchmark-templates/apply', { params: { header: { authorization: `Bearer ${gateway.apiKey}` } }, body: request }),
  );
  if (options.json) return printJson(result);
  print(report(result));
}

async function requestFrom(json: unknown, options: ApplyOptions, gateway: Gateway): Promise<ApplyBenchmarkTemplatesRequest> {
  const dryRun = !options.apply;
  if (isBenchmarkFile(json)) {
    const templates = await templatesFromBenchmarkFile(json, options, gateway);
    return { templates, prune: Boolean(options.prune), dryRun };
  }
  const body = json as Partial<ApplyBenchmarkTemplatesRequest> | null;
  if (!body || typeof body !== 'object' || !Array.isArray(body.templates)) {
    throw new CliError(`${options.file} is neither an apply request ({"templates": [...]}) nor a benchmark file ([{"variants", "metrics", "support_ops"}])`);
  }
  return { templates: body.templates, prune: Boolean(options.prune || body.prune), dryRun };
}

async function templatesFromBenchmarkFile(json: unknown, options: ApplyOptions, gateway: Gateway): Promise<BenchmarkTemplate[]> {
  if (!options.name) throw new CliError(`${options.file} is a benchmark file: give --name, the slug prefix (e.g. --name gemma4)`);
  const supportedMarkets: string[] = [];
  for (const market of options.market) {
    const found = await answer(gateway, () => gateway.client.GET('/markets/{market}', { params: { path: { market } } }));
    supportedMarkets.push(found.address);
  }
  return benchmarkFileToTemplates(json, { name: options.name, supportedMarkets, source: options.file, threshold: thresholdFrom(options) });
}

function thresholdFrom(options: ApplyOptions): BenchmarkTemplateThreshold | undefined {
  if (options.thresholdMetric === undefined && options.thresholdRule === undefined) return undefined;
  const threshold: BenchmarkTemplateThreshold = {};
  if (options.thresholdMetric !== undefined) threshold.metric = options.thresholdMetric;
  if (options.thresholdRule !== undefined) threshold.jsonLogic = parseJson(options.thresholdRule, '--threshold-rule') as Record<string, unknown>;
  return threshold;
}

/** The changes as a table, then what happened and what to do next. */
export function report(result: ApplyBenchmarkTemplatesResponse): string {
  if (result.changes.length === 0) return 'no templates and nothing to remove';
  const rows = result.changes.map((c) => [
    c.slug,
    c.status,
    metrics(c),
    links(c.reconciliation.add.length, '+'),
    links(c.reconciliation.remove.length, '-'),
    yes(c.reconciliation.needsThreshold),
    yes(c.reconciliation.inSync),
  ]);
  const lines = [table(['SLUG', 'STATUS', 'METRICS', 'ADD', 'REMOVE', 'NEW THRESHOLD', 'IN SYNC'], rows)];
  for (const c of result.changes) {
    if (c.conflictKeys.length > 0) lines.push(`note: ${c.slug}: ${c.conflictKeys.join(', ')} already gated by another benchmark under a different definition`);
  }
  const pending = result.changes.filter((c) => c.status !== 'unchanged' || !c.reconciliation.inSync).length;
  if (result.dryRun) lines.push(pending === 0 ? 'dry run: everything is in sync' : `dry run: nothing written; ${pending} to change. Run again with --apply to write`);
  else lines.push(pending === 0 ? 'applied: nothing needed changing' : `applied: ${pending} written in one transaction`);
  return lines.join('\n');
}

/** `+2 ~1 -1 =3`: metric keys added, updated, removed, unchanged (names are in --json). */
function metrics(c: BenchmarkTemplateChange): string {
  const { added, updated, removed, unchanged } = c.metricChanges;
  const counts: [string, number][] = [
    ['+', added.length],
    ['~', updated.length],
    ['-', removed.length],
    ['=', unchanged.length],
  ];
  return (
    counts
      .filter(([, n]) => n > 0)
      .map(([sign, n]) => `${sign}${n}`)
      .join(' ') || '=0'
  );
}

const links = (count: number, sign: string): string => (count === 0 ? '-' : `${sign}${count}`);
const yes = (flag: boolean): string => (flag ? 'yes' : 'no');

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    throw new CliError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : message}`);
  }
  return parseJson(text.replace(/^\uFEFF/, ''), file);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${what} is not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
}
