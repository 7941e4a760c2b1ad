/**
 * The real neighbours of deployment-manager for tests: client-manager and
 * host-manager as child processes on a fresh database and Redis, an operator
 * key (ADMIN_API_KEY), users with credits and markets made through their APIs.
 */
import { generateApiKey } from '@ocg/auth';
import type { CreateMarketRequest, CreateMarketResponse, CreateUserResponse, GetCreditBalanceResponse } from '@ocg/contracts';
import { freePorts, launchServices, testDatabase, testRedis, type LaunchedStack } from '@ocg/testing';

export const INTERNAL_TOKEN = 'internal-token-for-deployment-manager-tests';
export const MASTER_KEY = 'cd'.repeat(32);
/** tsx applies a tsconfig only to files it includes; the services need the base one (decorators, paths). */

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestUser {
  id: string;
  key: string;
  /** The wallet address: the poster of the user's jobs. */
  address: string;
}

export interface Managers {
  databaseUrl: string;
  redisUrl: string;
  adminKey: string;
  clientManagerUrl: string;
  hostManagerUrl: string;
  /** Service log lines, for a failing test to quote. */
  lines: string[];
  newUser(credits?: number): Promise<TestUser>;
  balance(user: TestUser): Promise<GetCreditBalanceResponse>;
  createMarket(body?: Partial<CreateMarketRequest>): Promise<CreateMarketResponse>;
  stop(): Promise<void>;
}

let counter = 0;

/** client-manager alone: users, credits and holds, for the tests of money that need no market or node. */
export type ClientManager = Pick<Managers, 'databaseUrl' | 'redisUrl' | 'adminKey' | 'clientManagerUrl' | 'lines' | 'newUser' | 'balance' | 'stop'>;

/** `deploymentManagerUrl`: where host-manager asks deployment-manager to stop a node's jobs (node control tests). */
export async function startManagers(opts: { deploymentManagerUrl?: string } = {}): Promise<Managers> {
  const { stack, ...base } = await launch(['client-manager', 'host-manager'], opts.deploymentManagerUrl);
  const hostManagerUrl = stack.urls['host-manager'];
  return {
    ...base,
    hostManagerUrl,
    async createMarket(body = {}) {
      const res = await call(hostManagerUrl, 'POST', '/markets', {
        key: base.adminKey,
        body: { name: `Market ${++counter} ${process.pid}`, pricePerSecond: 1000, defaultDurationSeconds: 60, ...body },
      });
      if (res.status !== 200) throw new Error(`market not created: ${JSON.stringify(res.body)}`);
      return res.body as CreateMarketResponse;
    },
  };
}

export async function startClientManager(): Promise<ClientManager> {
  const { stack: _stack, ...base } = await launch(['client-manager']);
  return base;
}

async function launch(only: string[], deploymentManagerUrl?: string): Promise<ClientManager & { stack: LaunchedStack }> {
  const database = await testDatabase();
  const { url: redisUrl } = await testRedis();
  const adminKey = generateApiKey();
  const lines: string[] = [];
  let stack: LaunchedStack;
  try {
    stack = await launchServices({
      only,
      databaseUrl: database.url,
      redisUrl,
      ports: await freePorts(only),
      logLevel: 'warn',
      env: { MASTER_KEY, ADMIN_API_KEY: adminKey, INTERNAL_TOKEN },
      serviceEnv: deploymentManagerUrl ? { 'host-manager': { DEPLOYMENT_MANAGER_URL: deploymentManagerUrl } } : undefined,
      onLine: (line) => lines.push(line),
    });
  } catch (err) {
    throw new Error(`managers did not start: ${(err as Error).message}\n${lines.slice(-20).join('\n')}`, { cause: err });
  }
  const clientManagerUrl = stack.urls['client-manager'];
  const admin = (method: string, path: string, body?: unknown) => call(clientManagerUrl, method, path, { key: adminKey, body });

  return {
    stack,
    databaseUrl: database.url,
    redisUrl,
    adminKey,
    clientManagerUrl,
    lines,
    async newUser(credits = 0) {
      const n = ++counter;
      const made = await admin('POST', '/users', { email: `user${n}-${Date.now()}@example.com`, name: `User ${n}` });
      if (made.status !== 200) throw new Error(`user not created: ${JSON.stringify(made.body)}`);
      const { user, apiKey } = made.body as CreateUserResponse;
      if (credits > 0) {
        const granted = await admin('POST', '/credits/grant', { userId: user.id, amount: credits, reason: 'test' });
        if (granted.status !== 200) throw new Error(`credits not granted: ${JSON.stringify(granted.body)}`);
      }
      return { id: user.id, key: apiKey.key, address: user.generatedAddress };
    },
    async balance(user) {
      const res = await call(clientManagerUrl, 'GET', '/credits/balance', { key: user.key });
      if (res.status !== 200) throw new Error(`balance unreadable: ${JSON.stringify(res.body)}`);
      return res.body as GetCreditBalanceResponse;
    },
    async stop() {
      await stack.stop();
      await database.drop();
    },
  };
}

/** One JSON request; `key` becomes `Authorization: Bearer <key>`. */
export async function call<T = any>(base: string, method: string, path: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the raw text
  }
  return { status: res.status, body: body as T, headers: res.headers };
}
