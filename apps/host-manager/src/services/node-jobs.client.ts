import { INTERNAL_TOKEN_HEADER } from '@ocg/auth';
import { ServiceUnavailableError } from '@ocg/http';

/** What host-manager asks of deployment-manager: end every job of a node an operator took out. */
export interface NodeJobsStopper {
  /** Ends (STOPPED, settled) every job running on `node`; answers their addresses. */
  stopJobs(node: string, reason: string): Promise<string[]>;
}

export class DeploymentManagerClient implements NodeJobsStopper {
  constructor(
    private readonly baseUrl: string,
    private readonly internalToken: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  async stopJobs(node: string, reason: string): Promise<string[]> {
    let res: Response;
    try {
      res = await fetch(new URL(`/internal/nodes/${encodeURIComponent(node)}/stop-jobs`, this.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(this.internalToken ? { [INTERNAL_TOKEN_HEADER]: this.internalToken } : {}) },
        body: JSON.stringify({ reason }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw unavailable(`no answer (${(err as Error).message})`);
    }
    if (res.status !== 200) throw unavailable(`status ${res.status}`);
    const body = (await res.json().catch(() => ({}))) as { stopped?: string[] };
    return body.stopped ?? [];
  }
}

const unavailable = (detail: string) =>
  new ServiceUnavailableError(`deployment-manager could not stop the node's jobs (${detail}); the node is disabled, try again shortly`);
