/**
 * `ocg admin markets create|list|limits|warm|rotate-join-token`: operators make markets, set what a job may take,
 * list the resources the market's nodes keep warm, and rotate join tokens.
 */
import type { Command } from 'commander';
import { CREDIT_UNITS, type MarketContainerPolicyUpdate, type MarketJobLimitsUpdate, type MarketRecord, type WarmResource } from '@ocg/contracts';
import { loadDefinition } from '../definition-file';
import { answer, gatewayFrom, withGatewayOptions, type GatewayOptions } from '../gateway';
import { CliError, print, printJson, table, wholeNumber } from '../output';

interface CreateOptions extends GatewayOptions {
  name: string;
  pricePerSecond: string;
  gpu?: boolean;
  defaultDuration?: string;
  maxDuration?: string;
  json?: boolean;
}

/** Adds `markets create` and `markets list` to the `admin` command. */
export function registerAdminMarkets(admin: Command): void {
  const markets = admin.command('markets').description('create and list markets (operator key)');
  withGatewayOptions(
    markets
      .command('create')
      .description('create a market; prints its join token once')
      .requiredOption('--name <name>', 'market name, e.g. a GPU model ("RTX 4090")')
      .requiredOption('--price-per-second <units>', `price in credit units per second (1 credit = ${CREDIT_UNITS.toLocaleString('en')} units)`)
      .option('--gpu', 'nodes must have a GPU')
      .option('--default-duration <seconds>', 'duration of a job posted without a timeout (default 7200)')
      .option('--max-duration <seconds>', 'longest duration a job may ask for (default 86400)')
      .option('--json', 'print the answer as JSON'),
  ).action((options: CreateOptions) => createMarket(options));
  withGatewayOptions(markets.command('list').description('list every market').option('--json', 'print the answer as JSON')).action((options: GatewayOptions & { json?: boolean }) =>
    listMarkets(options),
  );
  const limits = markets.command('limits <market>').description('set what one job may take of a node, and how its containers run (options left out keep their value)');
  for (const [flag, , help] of LIMIT_FLAGS) limits.option(`--${flag} <n>`, help);
  limits.option('--user <uid[:gid]|image>', 'run containers as this numeric user, or "image" for the image\'s own');
  limits.option('--read-only-root', 'mount the image read-only (/tmp and volumes stay writable)').option('--no-read-only-root', 'mount the image writable');
  withGatewayOptions(limits.option('--json', 'print the answer as JSON')).action((market: string, options: LimitsOptions) => setLimits(market, options));
  withGatewayOptions(
    markets
      .command('warm <market>')
      .description("list, add or remove the remote resources the market's nodes keep in their caches (no options: list)")
      .option('--add <json|file>', 'a resource item of args.resources (or a list of them), as JSON text or a file; repeatable', collect, [])
      .option('--remove <n>', 'the n-th resource of the list (as listed, from 1); repeatable', collect, [])
      .option('--clear', 'remove every resource first')
      .option('--json', 'print the answer as JSON'),
  ).action((market: string, options: WarmOptions) => warm(market, options));
  withGatewayOptions(
    markets
      .command('rotate-join-token <market>')
      .description('make a new join token; the old one stops working at once')
      .option('--revoke-nodes', "also remove the market's nodes (they joined with an old token); their jobs are stopped and settled")
      .option('--json', 'print the answer as JSON'),
  ).action((market: string, options: GatewayOptions & { json?: boolean; revokeNodes?: boolean }) => rotate(market, options));
}

/** Flag, job limit member, help. Numbers: whole, except CPUs. */
const LIMIT_FLAGS: Array<[string, keyof MarketJobLimitsUpdate, string]> = [
  ['max-ops', 'maxOps', 'most ops in one job (default 64)'],
  ['max-volumes', 'maxVolumes', 'most volumes one job creates (default 16)'],
  ['cpus-per-container', 'cpusPerContainer', 'CPUs per container, fractions allowed (default 4)'],
  ['cpus-per-job', 'cpusPerJob', "CPUs of a job's containers together (default 16)"],
  ['memory-per-container', 'memoryBytesPerContainer', 'bytes of memory per container (default 8 GiB)'],
  ['memory-per-job', 'memoryBytesPerJob', "bytes of memory of a job's containers together (default 32 GiB)"],
  ['pids-per-container', 'pidsPerContainer', 'processes per container (default 1024)'],
  ['pids-per-job', 'pidsPerJob', "processes of a job's containers together (default 8192)"],
  ['disk-per-container', 'diskBytesPerContainer', "bytes of a container's writable layer (default 20 GiB)"],
  ['volumes-per-job', 'volumeBytesPerJob', "bytes of a job's volumes together (default 50 GiB)"],
  ['bytes-per-resource', 'bytesPerResource', 'bytes of one remote resource a node fetches for a job (default 100 GiB)'],
  ['resources-per-job', 'resourceBytesPerJob', "bytes of a job's remote resources together (default 200 GiB)"],
];

type LimitsOptions = GatewayOptions & { json?: boolean; user?: string; readOnlyRoot?: boolean } & Record<string, string | boolean | undefined>;

async function setLimits(market: string, options: LimitsOptions): Promise<void> {
  const gateway = gatewayFrom(options);
  const jobLimits: MarketJobLimitsUpdate = {};
  for (const [flag, member] of LIMIT_FLAGS) {
    const text = options[camel(flag)];
    if (typeof text === 'string') jobLimits[member] = member.startsWith('cpus') ? cpus(`--${flag}`, text) : wholeNumber(`--${flag}`, text, 1);
  }
  const containerPolicy: MarketContainerPolicyUpdate = {};
  if (options.user !== undefined) containerPolicy.user = options.user === 'image' ? null : options.user;
  if (options.readOnlyRoot !== undefined) containerPolicy.readOnlyRootFilesystem = options.readOnlyRoot;
  const updated = await answer(gateway, () => gateway.client.POST('/markets/{market}/update', { params: { path: { market } }, body: { jobLimits, containerPolicy } }));
  if (options.json) return printJson(updated);
  print(`updated market ${updated.name}\n${describeMarket(updated)}`);
}

type WarmOptions = GatewayOptions & { add: string[]; remove: string[]; clear?: boolean; json?: boolean };

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** Reads the market's list, changes it and sends it whole (the update replaces the list). */
async function warm(market: string, options: WarmOptions): Promise<void> {
  const gateway = gatewayFrom(options);
  let record = await answer(gateway, () => gateway.client.GET('/markets/{market}', { params: { path: { market } } }));
  if (options.add.length > 0 || options.remove.length > 0 || options.clear) {
    const gone = new Set(options.remove.map((n) => wholeNumber('--remove', n, 1)));
    for (const n of gone) if (n > record.warmResources.length) throw new CliError(`--remove ${n}: the market keeps ${record.warmResources.length} resource(s) warm`);
    const kept = options.clear ? [] : record.warmResources.filter((_, i) => !gone.has(i + 1));
    const warmResources = [...kept, ...options.add.flatMap(warmItems)];
    record = await answer(gateway, () => gateway.client.POST('/markets/{market}/update', { params: { path: { market: record.address } }, body: { warmResources } }));
  }
  if (options.json) return printJson(record.warmResources);
  if (record.warmResources.length === 0) return print(`market ${record.name} keeps no resources warm`);
  print(
    table(
      ['#', 'RESOURCE', 'TARGET'],
      record.warmResources.map((r, i) => [String(i + 1), describeResource(r), String(r.target ?? '(default)')]),
    ),
  );
}

/** JSON text (starting with `{` or `[`) or a file holding it: one item or a list. */
function warmItems(text: string): WarmResource[] {
  let value: unknown;
  if (/^\s*[[{]/.test(text)) {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new CliError(`--add: invalid JSON: ${(error as Error).message}`);
    }
  } else {
    const loaded = loadDefinition(text);
    if ('problem' in loaded) throw new CliError(`--add: ${loaded.problem}`);
    value = loaded.definition;
  }
  return (Array.isArray(value) ? value : [value]) as WarmResource[];
}

function describeResource(r: WarmResource): string {
  if (r.type === 'HF') return `hf ${String(r.repo)}${r.revision ? `@${String(r.revision)}` : ''}`;
  if (r.type === 'Ollama') return `ollama ${String(r.model)}`;
  const buckets = Array.isArray(r.buckets) ? (r.buckets as Array<{ url: string }>).map((b) => b.url).join(' ') : '';
  return `s3 ${[r.url, r.bucket, buckets].filter(Boolean).join(' ')}`;
}

async function rotate(market: string, options: GatewayOptions & { json?: boolean; revokeNodes?: boolean }): Promise<void> {
  const gateway = gatewayFrom(options);
  const body = { revokeNodes: Boolean(options.revokeNodes) };
  const rotated = await answer(gateway, () => gateway.client.POST('/markets/{market}/rotate-join-token', { params: { path: { market } }, body }));
  if (options.json) return printJson(rotated);
  const revoked = rotated.revokedNodes.length === 0 ? 'no nodes were revoked' : `revoked ${rotated.revokedNodes.length} node(s): ${rotated.revokedNodes.join(', ')}`;
  print(`new join token ${rotated.joinToken}\n(shown only now; the old one no longer works; ${revoked})`);
}

const camel = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function cpus(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || n < 0.01) throw new CliError(`${flag} must be a number of CPUs of at least 0.01, got "${text}"`);
  return n;
}

async function createMarket(options: CreateOptions): Promise<void> {
  const gateway = gatewayFrom(options);
  const body = {
    name: options.name,
    pricePerSecond: wholeNumber('--price-per-second', options.pricePerSecond),
    gpuRequired: Boolean(options.gpu),
    ...(options.defaultDuration === undefined ? {} : { defaultDurationSeconds: wholeNumber('--default-duration', options.defaultDuration) }),
    ...(options.maxDuration === undefined ? {} : { maxDurationSeconds: wholeNumber('--max-duration', options.maxDuration) }),
  };
  const market = await answer(gateway, () => gateway.client.POST('/markets', { body }));
  if (options.json) return printJson(market);
  print(
    `created market ${market.name}\n${describeMarket(market)}\njoin token   ${market.joinToken}\n(the join token is shown only now; nodes need it to register. Rotate it if it leaks.)`,
  );
}

async function listMarkets(options: GatewayOptions & { json?: boolean }): Promise<void> {
  const gateway = gatewayFrom(options);
  const listed = await answer(gateway, () => gateway.client.GET('/markets'));
  if (options.json) return printJson(listed);
  const { markets } = listed;
  if (markets.length === 0) return print('no markets yet: create one with ocg admin markets create');
  const rows = markets.map((m) => [m.name, m.address, price(m.pricePerSecond), m.gpuRequired ? 'yes' : 'no', `${m.defaultDurationSeconds}s`, `${m.maxDurationSeconds}s`]);
  print(table(['NAME', 'ADDRESS', 'PRICE/S', 'GPU', 'DEFAULT', 'MAX'], rows));
}

function describeMarket(m: MarketRecord): string {
  return [
    `address      ${m.address}`,
    `price        ${price(m.pricePerSecond)} per second`,
    `GPU          ${m.gpuRequired ? 'required' : 'not required'}`,
    `duration     ${m.defaultDurationSeconds} s by default, at most ${m.maxDurationSeconds} s`,
    `job limits   ${m.jobLimits.maxOps} ops, ${m.jobLimits.maxVolumes} volumes; per container ${m.jobLimits.cpusPerContainer} CPUs, ${m.jobLimits.memoryBytesPerContainer} bytes, ${m.jobLimits.pidsPerContainer} pids, ${m.jobLimits.diskBytesPerContainer} bytes of disk`,
    `per job      ${m.jobLimits.cpusPerJob} CPUs, ${m.jobLimits.memoryBytesPerJob} bytes, ${m.jobLimits.pidsPerJob} pids, ${m.jobLimits.volumeBytesPerJob} bytes of volumes, ${m.jobLimits.resourceBytesPerJob} bytes of remote resources (${m.jobLimits.bytesPerResource} each)`,
    `containers   run as ${m.containerPolicy.user ?? "the image's user"}, root filesystem ${m.containerPolicy.readOnlyRootFilesystem ? 'read-only' : 'writable'}`,
    `kept warm    ${m.warmResources.length} remote resource(s) (ocg admin markets warm)`,
  ].join('\n');
}

/** `250 units (0.00025 credits)`: units are what the API takes, credits what people think in. */
export function price(units: number): string {
  return `${units} units (${units / CREDIT_UNITS} credits)`;
}
