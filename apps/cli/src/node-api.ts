/**
 * A job's node API through its typed client (`createNodeApiClient`, from
 * libs/api-spec/node-openapi.json). The header is made here for the user, as
 * `ocg job node-header` makes it; the node is reached at
 * `https://<node address>.<node domain>` through the gateway, the domain read
 * from the job's URLs, or at --node-url.
 */
import { Agent } from 'undici';
import type { Command } from 'commander';
import { createNodeApiClient, type NodeApiClient } from '@ocg/api-client';
import type { ErrorBody, JobRecord } from '@ocg/contracts';
import { answer, gatewayFrom, isTransient, reason, withGatewayOptions, type GatewayOptions } from './gateway';
import { loopbackLookup, readCa } from './endpoint';
import { headerFor } from './node-header';
import { CliError } from './output';

export interface NodeApiOptions extends GatewayOptions {
  nodeUrl?: string;
  ca?: string;
}

const REQUEST_TIMEOUT_MS = 60_000;

/** --gateway, --network and --api-key, then where the node API is and which CA signs it. */
export function withNodeApiOptions(command: Command): Command {
  return withGatewayOptions(command)
    .option('--node-url <url>', "the node API's origin (default: https://<node address>.<node domain>, the domain from the job's URLs)")
    .option('--ca <file>', "PEM of a CA to trust for the node's URL (or set NODE_EXTRA_CA_CERTS)");
}

export interface NodeApi {
  client: NodeApiClient;
  /** The same node API without the request timeout, for streams that last as long as the job. */
  streaming: NodeApiClient;
  url: string;
  job: JobRecord;
}

/** A header is good for 5 minutes; a new one is signed a little before. */
const HEADER_FRESH_MS = 4 * 60_000;

/** The job's record, a header signed for its node (signed again when it gets old), and clients for that node. */
export async function nodeApiFor(address: string, options: NodeApiOptions): Promise<NodeApi> {
  const gateway = gatewayFrom(options);
  const job = await answer(gateway, () => gateway.client.GET('/jobs/{job}', { params: { path: { job: address } } }));
  let signed = await headerFor(gateway, job);
  const authorization = async () => {
    if (Date.now() - signed.timestamp > HEADER_FRESH_MS) signed = await headerFor(gateway, job);
    return signed.header;
  };
  const url = (options.nodeUrl ?? nodeUrlOf(signed.node, job)).replace(/\/+$/, '');
  const dispatcher = new Agent({ connect: { lookup: loopbackLookup, ...(options.ca ? { ca: readCa(options.ca) } : {}) } });
  // Node's fetch takes undici's dispatcher: `*.localhost` is loopback, and the CA is trusted, as for the endpoint probe.
  const timed: typeof fetch = (input, init) => fetch(input, { ...init, dispatcher, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) } as RequestInit);
  const untimed: typeof fetch = (input, init) => fetch(input, { ...init, dispatcher } as RequestInit);
  return {
    client: createNodeApiClient({ baseUrl: url, authorization, fetch: timed }),
    streaming: createNodeApiClient({ baseUrl: url, authorization, fetch: untimed }),
    url,
    job,
  };
}

/** The node host beside the job's own hosts: same scheme, domain and port. */
function nodeUrlOf(node: string, job: JobRecord): string {
  const seen = job.url ?? job.endpoints[0]?.url;
  if (!seen) throw new CliError(`job ${job.address} exposes no port, so its node domain is not known here: pass --node-url https://<node address>.<node domain>`);
  const url = new URL(seen);
  url.hostname = `${node.toLowerCase()}.${url.hostname.split('.').slice(1).join('.')}`;
  return url.origin;
}

/** How a command that follows a node asks it again while it is out of reach: the pause before each attempt, and when it gives up. */
export const NODE_BACKOFF_MS = [250, 500, 1000, 2000, 4000];
export const NODE_GIVE_UP_MS = 120_000;

/**
 * The data of a node API answer, or why it could not be had this time (no
 * answer, or 502/503/504 from the gateway in front of the node): worth asking
 * again. A refusal that asking again will not change is thrown.
 */
export async function nodeAnswerOrWhy<T>(call: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<{ data: T } | { why: string }> {
  try {
    const reply = await call();
    if (reply.response.ok && reply.data !== undefined && reply.data !== null) return { data: reply.data };
    if (isTransient(reply.response.status)) return { why: `HTTP ${reply.response.status}` };
    throw nodeRefusal(reply.response.status, reply.error);
  } catch (err) {
    if (err instanceof CliError) throw err;
    return { why: reason(err) };
  }
}

/** The data of a node API answer, or a CliError naming the node when it cannot be reached or saying why it refused. */
export async function nodeAnswer<T>(api: NodeApi, call: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let reply: { data?: T; error?: unknown; response: Response };
  try {
    reply = await call();
  } catch (err) {
    throw new CliError(`cannot reach the node API at ${api.url}: ${reason(err)}`);
  }
  if (reply.response.ok && reply.data !== undefined) return reply.data;
  throw nodeRefusal(reply.response.status, reply.error);
}

/** What the node (or the gateway in front of it) said, as a person reads it: `the node refused (409): group g is not running (a completed)`. */
export function nodeRefusal(status: number, error: unknown): CliError {
  const body = (typeof error === 'object' && error !== null ? error : {}) as Partial<ErrorBody>;
  const message = body.message ?? (typeof error === 'string' && error ? error.slice(0, 200) : `HTTP ${status}`);
  if (status === 401) return new CliError(`the node refused the signed header (401): ${message}`, error);
  if (body.code === 'NODE_OFFLINE' || status === 502 || status === 503 || status === 504) return new CliError(`the node cannot be reached now (${status}): ${message}`, error);
  return new CliError(`the node refused (${status}${body.name ? ` ${body.name}` : ''}): ${message}`, error);
}
