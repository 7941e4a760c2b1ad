import { ServiceClient, ServiceUnavailableError } from '@ocg/http';

/** What host-manager asks of deployment-manager: end every job of a node an operator took out. */
export interface NodeJobsStopper {
  /** Ends (STOPPED, settled) every job running on `node`; answers their addresses. */
  stopJobs(node: string, reason: string): Promise<string[]>;
}

export class DeploymentManagerClient implements NodeJobsStopper {
  private readonly service: ServiceClient;

  constructor(baseUrl: string, internalToken: string | undefined, timeoutMs: number) {
    this.service = new ServiceClient({ service: 'deployment-manager', baseUrl, internalToken, timeoutMs });
  }

  /** A POST, so tried once: a repeat after a lost answer would report no jobs stopped. */
  async stopJobs(node: string, reason: string): Promise<string[]> {
    const res = await this.service
      .request<{ stopped?: string[] }>({ method: 'POST', path: `/internal/nodes/${encodeURIComponent(node)}/stop-jobs`, body: { reason } })
      .catch((err: Error) => {
        throw unavailable((err as ServiceUnavailableError).internalDetail?.replace(/^deployment-manager: /, '') ?? err.message);
      });
    if (res.status !== 200) throw unavailable(`status ${res.status}`);
    return res.body?.stopped ?? [];
  }
}

const unavailable = (detail: string) => new ServiceUnavailableError(`deployment-manager could not stop the node's jobs (${detail}); the node is disabled, try again shortly`);
