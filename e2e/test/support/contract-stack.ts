/**
 * The API services behind the gateway on a private Postgres and Redis, with an
 * operator key (every scope), a market and a node registered in it: what the
 * bounded-work and fuzz suites send their requests through.
 */
import { randomBytes } from 'node:crypto';
import { createSigner, generateApiKey, generateWallet, signNodeRequest, type WalletSigner } from '@ocg/auth';
import { freePort, launchServices, testDatabase, testRedis, type LaunchedStack } from '@ocg/testing';

export const API_SERVICES = ['client-manager', 'host-manager', 'deployment-manager'];

export interface ContractStack {
  stack: LaunchedStack;
  gateway: string;
  adminKey: string;
  node: WalletSigner;
  market: { address: string; name: string };
  /** Headers signing `method path body` with the registered node's key. */
  nodeHeaders(method: string, path: string, body?: unknown): Record<string, string>;
  /** Service log lines, for a failure's context. */
  lines: string[];
  stop(): Promise<void>;
}

async function call(gateway: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export async function startContractStack(): Promise<ContractStack> {
  const db = await testDatabase();
  const redis = await testRedis();
  const ports: Record<string, number> = {};
  for (const name of [...API_SERVICES, 'gateway']) ports[name] = await freePort();
  const adminKey = generateApiKey();
  const lines: string[] = [];
  const stack = await launchServices({
    databaseUrl: db.url,
    redisUrl: redis.url,
    ports,
    only: [...API_SERVICES, 'gateway'],
    logLevel: 'warn',
    env: { ADMIN_API_KEY: adminKey, INTERNAL_TOKEN: randomBytes(24).toString('hex') },
    onLine: (l) => lines.push(l),
  });
  const gateway = stack.urls.gateway!;
  const bearer = { authorization: `Bearer ${adminKey}` };
  const created = await call(gateway, 'POST', '/markets', bearer, { name: 'fuzz market', pricePerSecond: 1 });
  if (created.status !== 200) throw new Error(`creating the market: ${created.status} ${JSON.stringify(created.body)}`);
  const market = { address: created.body.address as string, name: created.body.name as string };
  const node = createSigner(generateWallet().secretKey);
  const nodeHeaders = (method: string, path: string, body?: unknown) => signNodeRequest(node, { method, path, body });
  const registration = {
    market: market.address,
    joinToken: created.body.joinToken,
    specs: { cpus: 2, memoryBytes: 8 * 2 ** 30, gpus: [] },
    domain: 'node.example.net',
    ingressUrl: 'http://127.0.0.1:9',
  };
  const registered = await call(gateway, 'POST', '/nodes/register', nodeHeaders('POST', '/nodes/register', registration), registration);
  if (registered.status !== 200) throw new Error(`registering the node: ${registered.status} ${JSON.stringify(registered.body)}`);
  return {
    stack,
    gateway,
    adminKey,
    node,
    market,
    nodeHeaders,
    lines,
    stop: async () => {
      await stack.stop();
      await db.drop();
    },
  };
}
