/**
 * A node that is only its key: it registers with host-manager and claims,
 * reports and finishes jobs through the gateway with real signed requests,
 * as node-agent does, so `job post` sees a job go RUNNING without Docker.
 */
import { randomBytes } from 'node:crypto';
import { createSigner, signNodeRequest } from '@ocg/auth';
import type { JobAssignmentRecord } from '@ocg/contracts';
import { NODE_DOMAIN, call } from './stack';

export class FakeNode {
  private readonly signer = createSigner(randomBytes(32));

  constructor(private readonly gateway: string) {}

  send(path: string, body: unknown): Promise<any> {
    return call(this.gateway, 'POST', path, undefined, body, signNodeRequest(this.signer, { method: 'POST', path, body }));
  }

  /** `ingressUrl`: where the gateway sends the node's hosts (default: a port nothing listens on). */
  async register(market: string, joinToken: string, ingressUrl = 'http://127.0.0.1:9'): Promise<void> {
    const specs = { cpus: 4, memoryBytes: 8 * 2 ** 30, gpus: [] };
    await this.send('/nodes/register', { market, joinToken, specs, domain: NODE_DOMAIN, ingressUrl });
  }

  /** Long-polls until a job of the market is claimed. */
  async claim(market: string): Promise<JobAssignmentRecord> {
    for (let i = 0; i < 10; i++) {
      const { assignment } = await this.send('/node-jobs/claim', { market, waitSeconds: 5 });
      if (assignment) return assignment;
    }
    throw new Error(`no job of ${market} to claim`);
  }

  /** What node-agent reports while a job runs: op states (with log tails) and endpoints. */
  report(job: string, body: { ops?: object[]; endpoints?: object[] }): Promise<any> {
    return this.send(`/node-jobs/${job}/report`, body);
  }

  finish(job: string, results: Record<string, Record<string, string[]>>): Promise<any> {
    const now = new Date().toISOString();
    const ops = Object.keys(results).map((id, opIndex) => ({ id, opIndex, status: 'completed', exitCode: 0, startedAt: now, endedAt: now }));
    return this.send(`/node-jobs/${job}/finish`, { status: 'completed', results, ops });
  }
}
