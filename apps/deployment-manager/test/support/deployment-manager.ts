/** deployment-manager in-process (buildApp) against the managers of ./managers. */
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { remoteKeyValidator, type RemoteKeyValidator } from '@ocg/auth';
import { createDataSource } from '@ocg/db';
import { createRedis } from '@ocg/redis';
import { createLogger, listen, type RunningServer } from '@ocg/http';
import { captureLogs } from '@ocg/testing';
import { buildApp, type DeploymentManagerSettings } from '../../src/app';
import { loadConfig } from '../../src/config';
import { entities } from '../../src/entities';
import { migrations } from '../../src/migrations';
import { composeServices, type DeploymentManagerServices } from '../../src/services';
import { INTERNAL_TOKEN, MASTER_KEY, call, type Managers, type Reply, type TestUser } from './managers';

export const NODE_DOMAIN = 'node.test';

export interface TestDeploymentManager {
  url: string;
  db: DataSource;
  redis: Redis;
  services: DeploymentManagerServices;
  logs: ReturnType<typeof captureLogs>;
  /** A request as `user` (null: no credential). */
  as<T = any>(user: TestUser | null, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply<T>>;
  close(): Promise<void>;
}

/** The environment deployment-manager needs to reach the managers (as a process or in-process). */
export function deploymentManagerEnv(m: Managers): Record<string, string> {
  return {
    DATABASE_URL: m.databaseUrl,
    REDIS_URL: m.redisUrl,
    INTERNAL_TOKEN,
    MASTER_KEY,
    CLIENT_MANAGER_URL: m.clientManagerUrl,
    HOST_MANAGER_URL: m.hostManagerUrl,
    NODE_DOMAIN,
  };
}

/**
 * `redisUrl`: a Redis of the service's own (e.g. one the test stops), instead of the managers' one.
 * `level: 'trace'` also logs every query (and its failures) through the service logger.
 */
export async function startDeploymentManager(
  m: Managers,
  overrides: Partial<DeploymentManagerSettings> = {},
  opts: { redisUrl?: string; port?: number; level?: string } = {},
): Promise<TestDeploymentManager> {
  const level = opts.level ?? 'info';
  const logs = captureLogs();
  const logger = createLogger({ service: 'deployment-manager', level, destination: logs.stream });
  const log = (lvl: 'debug' | 'info' | 'warn' | 'error', msg: string) => logger[lvl]({ component: 'db' }, msg);
  const db = await createDataSource({ url: m.databaseUrl, schema: 'deployment_manager', entities, migrations, log, logging: level === 'trace' });
  // Commands pipelined per turn of the event loop, as main.ts has them (ADR 0082).
  const redis = opts.redisUrl ? createRedis(opts.redisUrl, { autoPipelining: true, onError: () => undefined }) : new Redis(m.redisUrl, { enableAutoPipelining: true });
  const keys: RemoteKeyValidator = remoteKeyValidator({ clientManagerUrl: m.clientManagerUrl, redis, internalToken: INTERNAL_TOKEN });
  await keys.ready();
  const settings = { ...loadConfig(deploymentManagerEnv(m)), ...overrides };
  const deps = { logger, db, redis, keys, settings };
  const services = composeServices(deps);
  const server: RunningServer = await listen(buildApp(deps, services), { host: '127.0.0.1', port: opts.port ?? 0 });
  return {
    url: server.url,
    db,
    redis,
    services,
    logs,
    as: (user, method, path, body, headers) => call(server.url, method, path, { key: user?.key, body, headers }),
    async close() {
      await services.sweeper.stop();
      services.waker.close();
      services.wakeups.close();
      await server.close();
      await keys.close();
      await db.destroy().catch(() => undefined);
      redis.disconnect();
    },
  };
}

/** Another instance's objects without an HTTP app: enough for a second sweeper. */
export async function startSecondInstance(m: Managers): Promise<{ services: DeploymentManagerServices; close(): Promise<void> }> {
  const db = await createDataSource({ url: m.databaseUrl, schema: 'deployment_manager', entities, migrations });
  const redis = new Redis(m.redisUrl);
  const logger = createLogger({ service: 'deployment-manager-2', level: 'silent' });
  const services = composeServices({ logger, db, redis, settings: loadConfig(deploymentManagerEnv(m)) });
  return {
    services,
    async close() {
      await services.sweeper.stop();
      services.waker.close();
      await db.destroy();
      redis.disconnect();
    },
  };
}
