import type express from 'express';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { buildServiceApp, type Logger } from '@ocg/http';
import { pingDb } from '@ocg/db';
import { pingRedis } from '@ocg/redis';

export interface ServiceDeps {
  logger: Logger;
  db: DataSource;
  redis: Redis;
}

/** The composition of host-manager's objects; main.ts and tests both call it. */
export function buildApp({ logger, db, redis }: ServiceDeps): express.Express {
  return buildServiceApp({
    service: 'host-manager',
    logger,
    checks: { postgres: () => pingDb(db), redis: () => pingRedis(redis) },
    register: () => undefined,
  });
}
