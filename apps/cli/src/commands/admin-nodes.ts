/** `ocg admin nodes list|disable|enable|remove`: operators take nodes out of service. */
import type { Command } from 'commander';
import type { NodeControlResponse } from '@ocg/contracts';
import { answer, gatewayFrom, withGatewayOptions, type GatewayOptions } from '../gateway';
import { localTime, print, printJson, table } from '../output';

interface Options extends GatewayOptions {
  json?: boolean;
  reason?: string;
  market?: string;
}

/** Adds `nodes list|disable|enable|remove` to the `admin` command. */
export function registerAdminNodes(admin: Command): void {
  const nodes = admin.command('nodes').description('list, disable, enable and remove nodes (operator key)');
  const json = (c: Command) => withGatewayOptions(c.option('--json', 'print the answer as JSON'));
  json(nodes.command('list').description('list nodes with their state, capacity and status').option('--market <market>', 'only this market (address or name)')).action(
    (o: Options) => listNodes(o),
  );
  json(
    nodes.command('disable <node>').description('refuse its claims and heartbeats; its jobs are stopped and settled').option('--reason <text>', 'end reason of its jobs'),
  ).action((node: string, o: Options) => control(node, 'disable', o));
  json(nodes.command('enable <node>').description('let a disabled node claim jobs again')).action((node: string, o: Options) => control(node, 'enable', o));
  json(nodes.command('remove <node>').description('stop and settle its jobs and forget the node').option('--reason <text>', 'end reason of its jobs')).action(
    (node: string, o: Options) => control(node, 'remove', o),
  );
}

async function listNodes(options: Options): Promise<void> {
  const gateway = gatewayFrom(options);
  const listed = await answer(gateway, () => gateway.client.GET('/nodes', { params: { query: { market: options.market, limit: 1000 } } }));
  if (options.json) return printJson(listed);
  if (listed.nodes.length === 0) return print('no nodes');
  const rows = listed.nodes.map((n) => [n.address, n.marketName, n.state, n.status, String(n.capacity), localTime(n.lastSeenAt)]);
  print(table(['ADDRESS', 'MARKET', 'STATE', 'STATUS', 'CAPACITY', 'LAST SEEN'], rows));
}

async function control(node: string, action: 'disable' | 'enable' | 'remove', options: Options): Promise<void> {
  const gateway = gatewayFrom(options);
  const params = { params: { path: { node } } };
  const body = options.reason === undefined ? {} : { reason: options.reason };
  const res: NodeControlResponse = await answer(gateway, () =>
    action === 'enable'
      ? gateway.client.POST('/nodes/{node}/enable', params)
      : action === 'disable'
        ? gateway.client.POST('/nodes/{node}/disable', { ...params, body })
        : gateway.client.POST('/nodes/{node}/remove', { ...params, body }),
  );
  if (options.json) return printJson(res);
  const stopped = res.stoppedJobs.length === 0 ? 'no jobs were running' : `stopped ${res.stoppedJobs.length} job(s): ${res.stoppedJobs.join(', ')}`;
  print(`node ${res.address} is ${res.state}; ${stopped}`);
}
