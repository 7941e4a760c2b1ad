/**
 * The stack's demo: a local CPU market, a demo user with credits, a node
 * agent on the local Docker engine in that market, and the README's example
 * job posted and answering through the gateway. Idempotent across restarts:
 * what it made is remembered in .data/demo.json.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createApiClient, type ApiClient, type components } from '@ocg/api-client';
import { waitFor } from '@ocg/testing';

type JobDefinition = components['schemas']['JobDefinition'];

export const DEMO_MARKET = 'local-cpu';
/** 100 units = 0.0001 credits per second. */
const PRICE_PER_SECOND = 100;
const DEMO_CREDITS = 100_000_000;

export interface DemoState {
  joinToken: string;
  marketAddress: string;
  userKey: string;
  userEmail: string;
}

function must<T>(what: string, res: { data?: T; error?: unknown; response: Response }): T {
  if (res.data !== undefined && res.response.ok) return res.data;
  throw new Error(`${what}: ${res.response.status} ${JSON.stringify(res.error)}`);
}

/** The demo market and user, made once and remembered. */
export async function ensureDemo(gateway: string, adminKey: string, file: string): Promise<DemoState> {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DemoState;
  const admin = createApiClient({ baseUrl: gateway, apiKey: adminKey });
  const market = must('creating the demo market', await admin.POST('/markets', { body: { name: DEMO_MARKET, pricePerSecond: PRICE_PER_SECOND } }));
  const email = 'demo@localhost';
  const created = must('creating the demo user', await admin.POST('/users', { body: { email, name: 'Demo user' } }));
  must('granting the demo credits', await admin.POST('/credits/grant', { body: { email, amount: DEMO_CREDITS, reason: 'local stack demo' } }));
  const state: DemoState = { joinToken: market.joinToken, marketAddress: market.address, userKey: created.apiKey.key, userEmail: email };
  writeFileSync(file, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  return state;
}

/** Waits until a node of the demo market is online. */
export async function waitForNode(gateway: string, adminKey: string): Promise<string> {
  const admin = createApiClient({ baseUrl: gateway, apiKey: adminKey });
  return waitFor(
    async () => {
      const res = await admin.GET('/nodes', { params: { query: { market: DEMO_MARKET } } });
      return res.data?.nodes.find((n) => n.status === 'ONLINE')?.address;
    },
    { timeoutMs: 60000, intervalMs: 500, what: 'the node agent to register' },
  );
}

export interface PostedJob {
  address: string;
  url: string;
  link: string;
}

/** Posts the example job as the demo user and waits until its service answers through the gateway. */
export async function postExample(gateway: string, userKey: string, definition: JobDefinition, onWait: (text: string) => void): Promise<PostedJob> {
  const user: ApiClient = createApiClient({ baseUrl: gateway, apiKey: userKey });
  const job = must('posting the example job', await user.POST('/jobs', { body: { definition, market: DEMO_MARKET, durationSeconds: 3600 } }));
  const started = Date.now();
  // A line when something changed, not one per poll.
  const said = new Set<string>();
  const sayOnce = (key: string, text: string) => {
    if (!said.has(key)) onWait(text);
    said.add(key);
  };
  const running = await waitFor(
    async () => {
      const res = await user.GET('/jobs/{job}', { params: { path: { job: job.address } } });
      const status = res.data?.status;
      if (status && status !== 'QUEUED' && status !== 'RUNNING') throw new Error(`the example job ended ${status}: ${res.data?.reason}`);
      sayOnce(`job ${status}`, `example job ${job.address} is ${status ?? 'unknown'} (${Math.round((Date.now() - started) / 1000)} s)`);
      return status === 'RUNNING' && res.data?.url ? { ...res.data, url: res.data.url } : undefined;
    },
    { timeoutMs: 300000, intervalMs: 1000, what: 'the example job to run' },
  );
  const url = running.url;
  await waitFor(
    async () => {
      const res = await fetch(url).catch(() => undefined);
      // Until its endpoint is up the ingress answers for it (404, 503): a wait, not a failure.
      if (res) sayOnce(`service ${res.status}`, res.ok ? `service ${url} answers ${res.status}` : `service ${url} not serving yet (${res.status}); waiting for its endpoint`);
      return res?.ok;
    },
    { timeoutMs: 300000, intervalMs: 1000, what: `the example job's service at ${url}` },
  );
  return { address: job.address, url, link: running.links.job };
}
