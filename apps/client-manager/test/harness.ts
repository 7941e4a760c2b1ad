import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { generateApiKey } from '@ocg/auth';
import { createDataSource } from '@ocg/db';
import { createLogger, listen, type RunningServer } from '@ocg/http';
import { createRedis } from '@ocg/redis';
import { captureLogs, testDatabase, testRedis } from '@ocg/testing';
import { buildApp, startServices, type ClientManagerServices } from '../src/app';
import { loadConfig, type ClientManagerConfig } from '../src/config';
import { entities } from '../src/entities';
import { migrations } from '../src/migrations';
import { call, type CallOptions, type Reply } from './support/http';

export interface HarnessOptions {
  /** A Postgres of the test's own (outage tests); default a fresh test database. */
  databaseUrl?: string;
  /** Variables on top of the test defaults, as the environment would give them. */
  env?: Record<string, string>;
  /** A Redis of the test's own (outage tests), used through `createRedis` as main.ts does; default the test Redis. */
  redisUrl?: string;
}

export interface TestUser {
  id: string;
  email: string;
  address: string;
  /** The user's first API key (every user scope). */
  key: string;
  keyId: string;
}

export interface Harness {
  url: string;
  db: DataSource;
  redis: Redis;
  logs: ReturnType<typeof captureLogs>;
  config: ClientManagerConfig;
  services: ClientManagerServices;
  /** The bootstrap operator key (ADMIN_API_KEY): every scope. */
  adminKey: string;
  internalToken: string;
  /** The clock the app reads; move it with advance(). */
  now(): number;
  advance(ms: number): void;
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  /** A user made through POST /users with the admin key. */
  createUser(opts?: { email?: string; name?: string; password?: string }): Promise<TestUser>;
  close(): Promise<void>;
}

let serial = 0;

/** client-manager in-process on a fresh database and the test Redis, with a bootstrap admin key. */
export async function startClientManager(opts: HarnessOptions | string = {}): Promise<Harness> {
  const { databaseUrl, env = {}, redisUrl: ownRedis } = typeof opts === 'string' ? { databaseUrl: opts } : opts;
  const database = databaseUrl ? undefined : await testDatabase();
  const redisUrl = ownRedis ?? (await testRedis()).url;
  const config = loadConfig({
    DATABASE_URL: databaseUrl ?? database!.url,
    REDIS_URL: redisUrl,
    MASTER_KEY: randomBytes(32).toString('hex'),
    ADMIN_API_KEY: generateApiKey(),
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    RATE_LIMIT_VALIDATE_PER_MINUTE: '100000',
    RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
    ...env,
  });
  const db = await createDataSource({ url: config.DATABASE_URL, schema: 'client_manager', entities, migrations });
  const redis = ownRedis ? createRedis(ownRedis, { onError: () => undefined }) : new Redis(redisUrl);
  const logs = captureLogs();
  let offset = 0;
  const clock = () => Date.now() + offset;
  const deps = { logger: createLogger({ service: 'client-manager', level: 'debug', destination: logs.stream }), db, redis, config, clock };
  const services = await startServices(deps);
  const server: RunningServer = await listen(buildApp(deps, services), { host: '127.0.0.1', port: 0 });
  const h: Harness = {
    url: server.url,
    db,
    redis,
    logs,
    config,
    services,
    adminKey: config.ADMIN_API_KEY!,
    internalToken: config.INTERNAL_TOKEN!,
    now: clock,
    advance: (ms) => void (offset += ms),
    call: (method, path, o) => call(server.url, method, path, o),
    createUser: async (u = {}) => {
      const email = u.email ?? `user${++serial}-${randomBytes(3).toString('hex')}@example.com`;
      const res = await h.call('POST', '/users', { key: h.adminKey, body: { email, name: u.name ?? 'Test User', ...(u.password ? { password: u.password } : {}) } });
      if (res.status !== 200) throw new Error(`POST /users answered ${res.status}: ${JSON.stringify(res.body)}`);
      return { id: res.body.user.id, email, address: res.body.user.generatedAddress, key: res.body.apiKey.key, keyId: res.body.apiKey.id };
    },
    close: async () => {
      await server.close();
      await services.memory.close();
      await db.destroy().catch(() => undefined);
      redis.disconnect();
      await database?.drop();
    },
  };
  return h;
}
