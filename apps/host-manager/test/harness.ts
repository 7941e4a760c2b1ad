/**
 * host-manager in-process on a fresh database and the test Redis, with the
 * real client-manager (a child process, same database, its own schema)
 * behind API keys: an operator key from ADMIN_API_KEY holds every scope,
 * and `keyWith(scopes)` creates narrower ones through client-manager's API.
 */
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { createSigner, generateApiKey, generateWallet, remoteKeyValidator, signNodeRequest, type RemoteKeyValidator, type WalletSigner } from '@ocg/auth';
import type { CreateMarketRequest, CreateMarketResponse } from '@ocg/contracts';
import { createDataSource } from '@ocg/db';
import { createLogger, listen, type RunningServer } from '@ocg/http';
import { createRedis } from '@ocg/redis';
import { captureLogs, freePort, launchServices, testDatabase, testRedis, type LaunchedStack } from '@ocg/testing';
import { buildApp, type HostManagerSettings } from '../src/app';
import { loadConfig } from '../src/config';
import { entities } from '../src/entities';
import { migrations } from '../src/migrations';

export const INTERNAL_TOKEN = 'internal-token-for-host-manager-tests';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface Harness {
  url: string;
  clientManagerUrl: string;
  db: DataSource;
  redis: Redis;
  adminKey: string;
  keys: RemoteKeyValidator;
  logs: ReturnType<typeof captureLogs>;
  /** A key of the operator with only these scopes, and its id. */
  keyWith(scopes: string[]): Promise<{ key: string; id: string }>;
  call<T = any>(method: string, path: string, opts?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<Reply<T>>;
  createMarket(body?: Partial<CreateMarketRequest>): Promise<CreateMarketResponse>;
  close(): Promise<void>;
}

let marketCounter = 0;

/** `redisUrl`: a Redis of host-manager's own (e.g. one the test stops), instead of the test Redis. */
export async function startHostManager(overrides: Partial<HostManagerSettings> = {}, opts: { redisUrl?: string } = {}): Promise<Harness> {
  const database = await testDatabase();
  const redisUrl = opts.redisUrl ?? (await testRedis()).url;
  const adminKey = generateApiKey();
  const clientManager = await launchClientManager(database.url, redisUrl, adminKey);
  const db = await createDataSource({ url: database.url, schema: 'host_manager', entities, migrations });
  const redis = opts.redisUrl ? createRedis(redisUrl, { onError: () => undefined }) : new Redis(redisUrl);
  const keys = remoteKeyValidator({ clientManagerUrl: clientManager.urls['client-manager'], redis, internalToken: INTERNAL_TOKEN });
  await keys.ready();
  const logs = captureLogs();
  const settings = { ...loadConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, INTERNAL_TOKEN, ALLOW_PRIVATE_INGRESS: 'true' }), ...overrides };
  const logger = createLogger({ service: 'host-manager', destination: logs.stream });
  const server: RunningServer = await listen(buildApp({ logger, db, redis, keys, settings }), { host: '127.0.0.1', port: 0 });

  const call = async (method: string, path: string, opts: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? adminKey : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };

  return {
    url: server.url,
    clientManagerUrl: clientManager.urls['client-manager'],
    db,
    redis,
    adminKey,
    keys,
    logs,
    call,
    async keyWith(scopes) {
      const res = await fetch(`${clientManager.urls['client-manager']}/api-keys/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `test ${scopes.join(' ')}`, scopes }),
      });
      const body = (await res.json()) as { key: string; id: string };
      if (res.status !== 200) throw new Error(`client-manager refused to create a key: ${JSON.stringify(body)}`);
      return { key: body.key, id: body.id };
    },
    async createMarket(body = {}) {
      const res = await call('POST', '/markets', { body: { name: `Market ${++marketCounter}`, pricePerSecond: 100, ...body } });
      if (res.status !== 200) throw new Error(`market not created: ${JSON.stringify(res.body)}`);
      return res.body as CreateMarketResponse;
    },
    async close() {
      await server.close();
      await keys.close();
      await db.destroy().catch(() => undefined);
      redis.disconnect();
      await clientManager.stop();
      await database.drop();
    },
  };
}

async function launchClientManager(databaseUrl: string, redisUrl: string, adminKey: string): Promise<LaunchedStack> {
  const lines: string[] = [];
  try {
    return await launchServices({
      only: ['client-manager'],
      databaseUrl,
      redisUrl,
      ports: { 'client-manager': await freePort() },
      logLevel: 'warn',
      // tsx applies a tsconfig only to the files it includes, and the root one includes only tools/:
      // without this, the service's parameter decorators (experimentalDecorators) fail to compile.
      serviceEnv: { 'client-manager': { ADMIN_API_KEY: adminKey, MASTER_KEY: 'ab'.repeat(32), INTERNAL_TOKEN } },
      onLine: (line) => lines.push(line),
    });
  } catch (err) {
    throw new Error(`client-manager did not start: ${(err as Error).message}\n${lines.slice(-20).join('\n')}`, { cause: err });
  }
}

/** A node: its own ed25519 key, signing each request like node-agent does. */
export class TestNode {
  readonly signer: WalletSigner = createSigner(generateWallet().secretKey);

  constructor(private readonly hm: Harness) {}

  get address(): string {
    return this.signer.address;
  }

  /** A signed request; `sign` lets a test break the signature on purpose. */
  async send<T = any>(path: string, body: unknown, sign: { now?: number; signer?: WalletSigner; signedBody?: unknown } = {}): Promise<Reply<T>> {
    const signed = signNodeRequest(sign.signer ?? this.signer, { method: 'POST', path, body: sign.signedBody ?? body }, { now: sign.now });
    return this.hm.call<T>('POST', path, { key: null, body, headers: { ...signed, 'x-ocg-node': this.address } });
  }

  register(market: string, joinToken: string, specs: object = cpuSpecs, extra: object = {}): Promise<Reply> {
    return this.send('/nodes/register', { market, joinToken, specs, domain: 'node.example.net', ingressUrl: 'http://10.0.0.5:8091', ...extra });
  }

  heartbeat(body: object = {}): Promise<Reply> {
    return this.send('/nodes/heartbeat', body);
  }
}

export const cpuSpecs = { cpus: 8, memoryBytes: 32 * 2 ** 30, gpus: [] };
export const gpuSpecs = { cpus: 16, memoryBytes: 64 * 2 ** 30, gpus: [{ model: 'NVIDIA RTX 4090', memoryBytes: 24 * 2 ** 30 }] };
