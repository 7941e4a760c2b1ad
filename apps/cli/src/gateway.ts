/**
 * What every command that talks to the gateway shares: where the gateway is
 * (--gateway, --network, OCG_GATEWAY_URL, OCG_NETWORK), which key to send
 * (--api-key, OCG_API_KEY), and turning answers into data or errors a person
 * can act on.
 */
import type { Command } from 'commander';
import { createApiClient, type ApiClient } from '@ocg/api-client';
import type { ErrorBody } from '@ocg/contracts';
import { CliError } from './output';

export const DEFAULT_GATEWAY = 'http://127.0.0.1:8080';
export const DEFAULT_NETWORK = 'local';
/** A gateway that accepts the connection but never answers should not hang a script forever. */
const REQUEST_TIMEOUT_MS = 60_000;

export interface GatewayOptions {
  gateway?: string;
  apiKey?: string;
  network?: string;
}

/** Adds --gateway, --network and --api-key to a command. */
export function withGatewayOptions(command: Command): Command {
  return command
    .option('--gateway <url>', `gateway origin (default: the network's, or OCG_GATEWAY_URL, or ${DEFAULT_GATEWAY})`)
    .option('--network <name>', `network name (default: OCG_NETWORK or ${DEFAULT_NETWORK}); names beyond local come from OCG_NETWORKS`)
    .option('--api-key <key>', 'API key (default: OCG_API_KEY)');
}

export interface Gateway {
  url: string;
  network: string;
  client: ApiClient;
  apiKey: string;
}

/** The gateway a command talks to; refuses early when there is no key or the network is unknown. */
export function gatewayFrom(opts: GatewayOptions, env: NodeJS.ProcessEnv = process.env): Gateway {
  const { url, network } = locate(opts, env);
  const apiKey = opts.apiKey ?? env.OCG_API_KEY;
  if (!apiKey) throw new CliError('no API key: pass --api-key or set OCG_API_KEY');
  const timed: typeof fetch = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return { url, network, apiKey, client: createApiClient({ baseUrl: url, apiKey, fetch: timed }) };
}

/**
 * Flags beat the environment, and at each level an explicit gateway URL
 * beats a network name; the network then only labels what is printed.
 */
function locate(opts: GatewayOptions, env: NodeJS.ProcessEnv): { url: string; network: string } {
  const networks = knownNetworks(env);
  const url =
    opts.gateway ??
    (opts.network === undefined ? undefined : networkUrl(opts.network, networks)) ??
    env.OCG_GATEWAY_URL ??
    networkUrl(env.OCG_NETWORK ?? DEFAULT_NETWORK, networks);
  const named = opts.network ?? (opts.gateway ? undefined : env.OCG_NETWORK);
  const network = named ?? Object.keys(networks).find((name) => sameOrigin(networks[name], url)) ?? 'custom';
  return { url: url.replace(/\/+$/, ''), network };
}

/** `local` plus OCG_NETWORKS: `name=url,name=url`. */
function knownNetworks(env: NodeJS.ProcessEnv): Record<string, string> {
  const networks: Record<string, string> = { [DEFAULT_NETWORK]: DEFAULT_GATEWAY };
  for (const entry of (env.OCG_NETWORKS ?? '').split(',').filter((e) => e.trim())) {
    const [name, url] = entry.split(/=(.*)/s).map((part) => part.trim());
    if (!name || !url) throw new CliError(`OCG_NETWORKS: "${entry}" is not name=url`);
    networks[name] = url;
  }
  return networks;
}

function networkUrl(name: string, networks: Record<string, string>): string {
  const url = networks[name];
  if (url) return url;
  throw new CliError(`unknown network "${name}" (known: ${Object.keys(networks).join(', ')}): pass --gateway, or add it to OCG_NETWORKS as ${name}=<gateway url>`);
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

type Reply<T> = { data?: T; error?: unknown; response: Response };

/** Answers worth asking again: the gateway or a service behind it is restarting or overloaded. */
const TRANSIENT = new Set([502, 503, 504]);
export const isTransient = (status: number): boolean => TRANSIENT.has(status);
const ATTEMPTS = 3;

/**
 * The data of a gateway answer, or a CliError saying what to do: the gateway
 * is down, the key is refused or lacks a scope, or which fields were wrong.
 */
export async function answer<T>(gateway: Gateway, call: () => Promise<Reply<T>>): Promise<T> {
  return dataOf(await reach(gateway, call));
}

/**
 * `answer` for calls that are safe to repeat (an upload by its content, a
 * post with an Idempotency-Key): a lost connection or a 502/503/504 is tried
 * again, so a blip does not leave the user guessing whether it happened.
 */
export async function answerRetrying<T>(gateway: Gateway, call: () => Promise<Reply<T>>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= ATTEMPTS;
    let result: Reply<T>;
    try {
      result = await call();
    } catch (err) {
      if (last) throw unreachable(gateway, err);
      await pause(attempt);
      continue;
    }
    if (!last && TRANSIENT.has(result.response.status)) await pause(attempt);
    else return dataOf(result);
  }
}

/** The raw reply, or the "cannot reach" error when there is none. */
export async function reach<T>(gateway: Gateway, call: () => Promise<Reply<T>>): Promise<Reply<T>> {
  try {
    return await call();
  } catch (err) {
    throw unreachable(gateway, err);
  }
}

export function dataOf<T>(result: Reply<T>): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  throw new CliError(describeFailure(result.response.status, result.error), result.error);
}

function unreachable(gateway: Gateway, err: unknown): CliError {
  return new CliError(`cannot reach the gateway at ${gateway.url}: ${reason(err)}\n  (is it running? npm run stack starts one; or pass --gateway / set OCG_GATEWAY_URL)`);
}

const pause = (attempt: number) => new Promise((r) => setTimeout(r, 500 * attempt));

/** ECONNREFUSED, ENOTFOUND, "timed out": the bottom of a fetch failure. */
export function reason(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

/** The error shape's name, status and message, then one line per field path. */
export function describeFailure(status: number, error: unknown): string {
  const body = (typeof error === 'object' && error !== null ? error : {}) as Partial<ErrorBody>;
  const message = body.message ?? (typeof error === 'string' && error ? error.slice(0, 200) : `HTTP ${status}`);
  if (status === 401) return `the gateway refused the API key (401): ${message}. Check --api-key or OCG_API_KEY`;
  if (status === 403) return `the API key may not do this (403): ${message}`;
  const lines = [`${body.name ?? 'Error'} (${status}): ${message}`];
  for (const e of body.errors ?? []) lines.push(`  ${e.path || '(body)'}: ${e.message}`);
  if (status >= 500 && body.requestId) lines.push(`  request id: ${body.requestId}`);
  return lines.join('\n');
}
