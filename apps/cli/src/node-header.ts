/**
 * The node API's signed header, made for the user: the job's node comes from
 * the job record, and the message `ocg-node-api:<node>:<job>` is signed by
 * the user's wallet through sign-message/external with the time bound in.
 * Users never build these headers by hand (apps/node-agent/README.md, "Node API").
 */
import { nodeApiMessage } from '@ocg/auth';
import type { JobRecord } from '@ocg/contracts';
import { answer, type Gateway } from './gateway';
import { CliError } from './output';

export interface NodeHeader {
  /** The Authorization header value, good for this node and job for 5 minutes. */
  header: string;
  node: string;
  job: string;
  /** Unix ms when it was signed. */
  timestamp: number;
}

export async function nodeApiHeader(gateway: Gateway, job: string): Promise<NodeHeader> {
  return headerFor(gateway, await answer(gateway, () => gateway.client.GET('/jobs/{job}', { params: { path: { job } } })));
}

/** The header for the job record's node and job. */
export async function headerFor(gateway: Gateway, record: JobRecord): Promise<NodeHeader> {
  if (!record.node) throw new CliError(`job ${record.address} is ${record.status} and no node has claimed it yet: its node API is not reachable`);
  const message = nodeApiMessage(record.node, record.address);
  const signed = await answer(gateway, () => gateway.client.POST('/auth/sign-message/external', { body: { message, includeTime: true } }));
  if (signed.timestamp === undefined) throw new CliError('the gateway signed without a timestamp; the node API refuses such headers');
  return { header: `${signed.message}:${signed.signature}:${signed.timestamp}`, node: record.node, job: record.address, timestamp: signed.timestamp };
}
