import type express from 'express';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { buildServiceApp, type Logger } from '@ocg/http';
import { pingDb } from '@ocg/db';
import { pingRedis } from '@ocg/redis';
import { RegisterRoutes } from './generated/routes';
import { iocContainer } from './ioc';
import { ScopesController } from './controllers/scopes.controller';
import { ScopeService } from './services/scope.service';

export interface ClientManagerDeps {
  logger: Logger;
  db: DataSource;
  redis: Redis;
}

/** The composition of client-manager's objects; main.ts and tests both call it. */
export function buildApp({ logger, db, redis }: ClientManagerDeps): express.Express {
  iocContainer.register(ScopesController, new ScopesController(new ScopeService()));
  return buildServiceApp({
    service: 'client-manager',
    logger,
    checks: { postgres: () => pingDb(db), redis: () => pingRedis(redis) },
    register: RegisterRoutes,
  });
}
