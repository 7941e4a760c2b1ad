/**
 * Real services for the CLI's tests: client-manager, host-manager,
 * deployment-manager and the gateway as child processes on a fresh database
 * and Redis, an operator key, and users with credits made through the API.
 */
import { generateApiKey } from '@ocg/auth';
import type { CreateMarketRequest, CreateMarketResponse, CreateUserResponse } from '@ocg/contracts';
import { freePorts, launchServices, testDatabase, testRedis, type LaunchedStack, type TestDatabase } from '@ocg/testing';

/** Jobs are served under it; two labels, since certificates may not carry `*.<tld>`. */
export const NODE_DOMAIN = 'nodes.localhost';

export interface TestUser {
  email: string;
  key: string;
  /** The wallet address. */
  address: string;
}

export interface TestStack {
  gateway: string;
  adminKey: string;
  redisUrl: string;
  newUser(credits?: number): Promise<TestUser>;
  createMarket(body?: Partial<CreateMarketRequest>): Promise<CreateMarketResponse>;
  stop(): Promise<void>;
}

type Service = 'client-manager' | 'host-manager' | 'deployment-manager' | 'gateway';
let users = 0;

export async function startStack(only: Service[]): Promise<TestStack> {
  const database: TestDatabase = await testDatabase();
  const { url: redisUrl } = await testRedis();
  const adminKey = generateApiKey();
  const ports = await freePorts(only);
  const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
  const lines: string[] = [];
  let stack: LaunchedStack;
  try {
    stack = await launchServices({
      only,
      databaseUrl: database.url,
      redisUrl,
      ports,
      logLevel: 'warn',
      // tsx applies a tsconfig only to files it includes; the services need the base one (decorators, paths).
      env: { INTERNAL_TOKEN: 'internal-token-for-cli-tests', MASTER_KEY: 'cd'.repeat(32) },
      serviceEnv: {
        'client-manager': { ADMIN_API_KEY: adminKey },
        'deployment-manager': { NODE_DOMAIN, PUBLIC_URL: gatewayUrl },
      },
      onLine: (line) => lines.push(line),
    });
  } catch (err) {
    await database.drop();
    throw new Error(`${(err as Error).message}\n${lines.slice(-20).join('\n')}`);
  }
  const admin = (method: string, path: string, body: unknown) => call(gatewayUrl, method, path, adminKey, body);
  return {
    gateway: gatewayUrl,
    adminKey,
    redisUrl,
    async newUser(credits = 0) {
      const email = `user${++users}-${Date.now()}@example.com`;
      const { user, apiKey } = (await admin('POST', '/users', { email, name: `User ${users}` })) as CreateUserResponse;
      if (credits > 0) await admin('POST', '/credits/grant', { email, amount: credits, reason: 'cli tests' });
      return { email, key: apiKey.key, address: user.generatedAddress };
    },
    createMarket: (body = {}) => admin('POST', '/markets', { name: `M${Date.now()}${++users}`, pricePerSecond: 100, ...body }) as Promise<CreateMarketResponse>,
    async stop() {
      await stack.stop();
      await database.drop();
    },
  };
}

/** A JSON call that must succeed (setup, not the subject of a test). */
export async function call(base: string, method: string, path: string, key: string | undefined, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}
