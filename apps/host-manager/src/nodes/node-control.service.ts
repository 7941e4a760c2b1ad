import type { NodeControlResponse } from '@ocg/contracts';
import { NotFoundError } from '@ocg/http';
import type { NodeJobsStopper } from './node-jobs.client';
import type { NodeRepository } from './node.repository';
import type { NodePresence } from './presence';

export const DISABLED_REASON = 'node disabled by an operator';
export const REMOVED_REASON = 'node removed by an operator';
export const REVOKED_REASON = "node revoked: its market's join token was rotated";

/**
 * Operators taking nodes out. Disabling marks the node first (claims,
 * heartbeats and registrations are refused from then on), then has
 * deployment-manager end and settle its jobs; removing does the same and
 * then deletes the node, so a retry after a failed stop finds it again.
 */
export class NodeControlService {
  constructor(
    private readonly nodes: NodeRepository,
    private readonly presence: NodePresence,
    private readonly jobs: NodeJobsStopper,
  ) {}

  async disable(address: string, reason = DISABLED_REASON): Promise<NodeControlResponse> {
    await this.mark(address);
    const stoppedJobs = await this.jobs.stopJobs(address, reason);
    return { address, state: 'DISABLED', stoppedJobs };
  }

  async enable(address: string): Promise<NodeControlResponse> {
    if (!(await this.nodes.enable(address))) throw notFound(address);
    return { address, state: 'ACTIVE', stoppedJobs: [] };
  }

  async remove(address: string, reason = REMOVED_REASON): Promise<NodeControlResponse> {
    await this.mark(address);
    const stoppedJobs = await this.jobs.stopJobs(address, reason);
    await this.nodes.delete(address);
    await this.presence.forget(address);
    return { address, state: 'REMOVED', stoppedJobs };
  }

  /** Removes every node of the market: after a rotation none of them holds the new token. */
  async revokeMarket(market: string): Promise<string[]> {
    const addresses = await this.nodes.addressesOf(market);
    for (const address of addresses) await this.remove(address, REVOKED_REASON);
    return addresses;
  }

  private async mark(address: string): Promise<void> {
    if (!(await this.nodes.disable(address))) throw notFound(address);
  }
}

const notFound = (address: string) => new NotFoundError(`No node with the address "${address}"`);
