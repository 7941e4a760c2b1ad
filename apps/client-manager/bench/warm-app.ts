/**
 * What the CPU harnesses share: client-manager's app (real Postgres and Redis,
 * the admin key's memory ready, served by `listen` as main.ts serves it) and a
 * bare express app answering `GET /auth/scopes`'s bytes, the baseline.
 */
import { randomBytes } from 'node:crypto';
import express from 'express';
import { Redis } from 'ioredis';
import { generateApiKey } from '@ocg/auth';
import { createDataSource } from '@ocg/db';
import { createLogger, listen, type RunningServer } from '@ocg/http';
import { testDatabase, testRedis } from '@ocg/testing';
import { buildApp, startServices } from '../src/app';
import { loadConfig } from '../src/config';
import { entities } from '../src/entities';
import { migrations } from '../src/migrations';

export interface WarmApp {
  cm: RunningServer;
  /** The same app served with every request walking express's stack (`listen`'s `routeTable: false`, ADR 0089). */
  cmWalk: RunningServer;
  /** `POST /auth/validate-api-key`'s body for the admin key. */
  validateBody: string;
  /** express with nothing added, answering every request with `GET /auth/scopes`'s bytes. */
  bareApp: express.Express;
  /** express answering a POST whose JSON body it reads (`express.json()`) with a warm validation's bytes: what the framework costs such a request. */
  barePostApp: express.Express;
  close(): Promise<void>;
}

export async function startWarmApp(): Promise<WarmApp> {
  const database = await testDatabase();
  const redisUrl = (await testRedis()).url;
  const config = loadConfig({
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    MASTER_KEY: randomBytes(32).toString('hex'),
    ADMIN_API_KEY: generateApiKey(),
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
  });
  const db = await createDataSource({ url: config.DATABASE_URL, schema: 'client_manager', entities, migrations });
  const redis = new Redis(redisUrl);
  const deps = { logger: createLogger({ service: 'client-manager', level: process.env.LOG_LEVEL ?? 'warn' }), db, redis, config };
  const services = await startServices(deps);
  await services.memory.ready();
  const app = buildApp(deps, services);
  const cm = await listen(app, { host: '127.0.0.1', port: 0 });
  const cmWalk = await listen(app, { host: '127.0.0.1', port: 0, routeTable: false });
  const body = Buffer.from(await (await fetch(`${cm.url}/auth/scopes`)).text());
  const bareApp = express();
  bareApp.disable('x-powered-by');
  bareApp.use((_req, res) => {
    res.type('application/json').send(body);
  });
  const validateBody = JSON.stringify({ apiKey: config.ADMIN_API_KEY });
  const validation = Buffer.from(
    await (await fetch(`${cm.url}/auth/validate-api-key`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: validateBody })).text(),
  );
  const barePostApp = express();
  barePostApp.disable('x-powered-by');
  barePostApp.post('/auth/validate-api-key', express.json(), (req, res) => {
    res.type('application/json').send(typeof (req.body as { apiKey?: unknown }).apiKey === 'string' ? validation : Buffer.from('{"valid":false}'));
  });
  return {
    cm,
    cmWalk,
    barePostApp,
    validateBody,
    bareApp,
    close: async () => {
      await cm.close();
      await cmWalk.close();
      await services.memory.close();
      await db.destroy();
      redis.disconnect();
      await database.drop();
    },
  };
}
