/** `ocg admin markets create|list`: operators make markets and see their prices. */
import type { Command } from 'commander';
import { CREDIT_UNITS, type MarketRecord } from '@ocg/contracts';
import { answer, gatewayFrom, withGatewayOptions, type GatewayOptions } from '../gateway';
import { print, printJson, table, wholeNumber } from '../output';

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
    pricePerSecond: wholeNumber('--price-per-second', options.pricePerSecond),
    gpuRequired: Boolean(options.gpu),
    ...(options.defaultDuration === undefined ? {} : { defaultDurationSeconds: wholeNumber('--default-duration', options.defaultDuration) }),
    ...(options.maxDuration === undefined ? {} : { maxDurationSeconds: wholeNumber('--max-duration', options.maxDuration) }),
  };
  const market = await answer(gateway, () => gateway.client.POST('/markets', { body }));
  if (options.json) return printJson(market);
  print(`created market ${market.name}\n${describeMarket(market)}\njoin token   ${market.joinToken}\n(the join token is shown only now; nodes need it to register. Rotate it if it leaks.)`);
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
  ].join('\n');
}

/** `250 units (0.00025 credits)`: units are what the API takes, credits what people think in. */
export function price(units: number): string {
  return `${units} units (${units / CREDIT_UNITS} credits)`;
}
