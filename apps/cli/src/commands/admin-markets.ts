/**
 * `ocg admin markets create|list`, and the gateway plumbing the admin
 * commands share (admin-benchmarks.ts uses it too): where the gateway is,
 * which key to send, and errors a person can act on.
 */
import type { Command } from 'commander';
import { createApiClient, type ApiClient } from '@ocg/api-client';
import { CREDIT_UNITS, type ErrorBody, type MarketRecord } from '@ocg/contracts';

export const DEFAULT_GATEWAY = 'http://127.0.0.1:8080';

export interface GatewayOptions {
  gateway?: string;
  apiKey?: string;
}

/** Adds --gateway and --api-key (falling back to OCG_GATEWAY_URL and OCG_API_KEY) to a command. */
export function withGatewayOptions(command: Command): Command {
  return command
    .option('--gateway <url>', `gateway origin (default: OCG_GATEWAY_URL or ${DEFAULT_GATEWAY})`)
    .option('--api-key <key>', 'API key (default: OCG_API_KEY)');
}

export interface Gateway {
  url: string;
  client: ApiClient;
  apiKey: string;
}

export function gatewayFrom(opts: GatewayOptions, env: NodeJS.ProcessEnv = process.env): Gateway {
  const url = opts.gateway ?? env.OCG_GATEWAY_URL ?? DEFAULT_GATEWAY;
  const apiKey = opts.apiKey ?? env.OCG_API_KEY;
  if (!apiKey) throw new Error('no API key: pass --api-key or set OCG_API_KEY (an operator key for admin commands)');
  return { url, apiKey, client: createApiClient({ baseUrl: url, apiKey }) };
}

/**
 * The data of a gateway answer, or an Error saying what to do: the gateway is
 * down, the key is refused or lacks a scope, or which fields were wrong.
 */
export async function answer<T>(gateway: Gateway, call: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call();
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`the gateway at ${gateway.url} is not answering (${cause?.code ?? cause?.message ?? (err as Error).message}); start it with npm run stack, or pass --gateway`);
  }
  if (result.response.ok && result.data !== undefined) return result.data;
  throw new Error(describeFailure(result.response.status, result.error));
}

export function describeFailure(status: number, error: unknown): string {
  const body = (typeof error === 'object' && error !== null ? error : {}) as Partial<ErrorBody>;
  const message = body.message ?? `HTTP ${status}`;
  if (status === 401) return `the gateway refused the API key (401): ${message}. Check --api-key or OCG_API_KEY`;
  if (status === 403) return `the API key may not do this (403): ${message}. Use an operator key`;
  const lines = [`${body.name ?? 'Error'} (${status}): ${message}`];
  for (const e of body.errors ?? []) lines.push(`  ${e.path || '(body)'}: ${e.message}`);
  if (status >= 500 && body.requestId) lines.push(`  request id: ${body.requestId}`);
  return lines.join('\n');
}

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
  withGatewayOptions(markets.command('list').description('list every market').option('--json', 'print the answer as JSON')).action(
    (options: GatewayOptions & { json?: boolean }) => listMarkets(options),
  );
}

async function createMarket(options: CreateOptions): Promise<void> {
  const gateway = gatewayFrom(options);
  const body = {
    name: options.name,
    pricePerSecond: integer('--price-per-second', options.pricePerSecond),
    gpuRequired: Boolean(options.gpu),
    ...(options.defaultDuration === undefined ? {} : { defaultDurationSeconds: integer('--default-duration', options.defaultDuration) }),
    ...(options.maxDuration === undefined ? {} : { maxDurationSeconds: integer('--max-duration', options.maxDuration) }),
  };
  const market = await answer(gateway, () => gateway.client.POST('/markets', { body }));
  if (options.json) return print(JSON.stringify(market, null, 2));
  print(`created market ${market.name}\n${describeMarket(market)}\njoin token   ${market.joinToken}\n(the join token is shown only now; nodes need it to register. Rotate it if it leaks.)`);
}

async function listMarkets(options: GatewayOptions & { json?: boolean }): Promise<void> {
  const gateway = gatewayFrom(options);
  const { markets } = await answer(gateway, () => gateway.client.GET('/markets'));
  if (options.json) return print(JSON.stringify(markets, null, 2));
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
  ].join('\n');
}

/** `250 units (0.00025 credits)`: units are what the API takes, credits what people think in. */
export function price(units: number): string {
  return `${units} units (${units / CREDIT_UNITS} credits)`;
}

function integer(flag: string, text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new Error(`${flag} must be a whole number, got "${text}"`);
  return Number(text);
}

/** Left-aligned columns separated by two spaces. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}
