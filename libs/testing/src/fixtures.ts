import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import pg from 'pg';
import { Redis } from 'ioredis';
import { startPostgresServer } from './postgres-server';
import { startRedisServer } from './redis-server';
import { scratchPath, sharedPerProcess } from './scratch';

export interface TestDatabase {
  /** Superuser URL of the new database. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

export interface TestRedis {
  /** URL selecting this caller's own logical database. */
  url: string;
  db: number;
  /** Empties this caller's database. */
  flush(): Promise<void>;
}

let processPostgres: Promise<string> | undefined;
let processRedis: Promise<string> | undefined;

/**
 * A fresh, uniquely named database on the shared test Postgres
 * (TEST_DATABASE_URL, an admin URL), or on a Postgres this process starts once
 * when the variable is unset.
 */
export async function testDatabase(): Promise<TestDatabase> {
  const admin = process.env.TEST_DATABASE_URL || (await (processPostgres ??= startProcessPostgres()));
  const name = `test_${process.pid}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await adminQuery(admin, `CREATE DATABASE "${name}"`);
  return {
    url: withDatabase(admin, name),
    name,
    drop: () => adminQuery(admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

function startProcessPostgres(): Promise<string> {
  return sharedPerProcess('postgres', async (orphanPaths) => {
    const dataDir = scratchPath('pg');
    return startPostgresServer({ dataDir, wipe: true, removeWhenOrphaned: [dataDir, ...orphanPaths] });
  });
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The same server URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

/**
 * The shared test Redis (TEST_REDIS_URL), or one this process starts once, on a
 * logical database of the caller's own: DB 0 holds a counter that hands out
 * 1..N-1 in turn (the test runner starts Redis with 4096 databases). Pub/sub
 * channels are not per database: use unique ids in channel names.
 */
export async function testRedis(): Promise<TestRedis> {
  const base = process.env.TEST_REDIS_URL || (await (processRedis ??= startProcessRedis()));
  const admin = new Redis(base, { lazyConnect: true, maxRetriesPerRequest: 1 });
  let db: number;
  try {
    await admin.select(0);
    const count = await databaseCount(admin);
    db = 1 + (((await admin.incr('ocg:testing:next-db')) - 1) % (count - 1));
    await admin.select(db);
    await admin.flushdb();
  } finally {
    admin.disconnect();
  }
  const url = withRedisDb(base, db);
  return { url, db, flush: () => flushRedis(url) };
}

function startProcessRedis(): Promise<string> {
  return sharedPerProcess('redis', (orphanPaths) => startRedisServer({ databases: 256, removeWhenOrphaned: orphanPaths }));
}

let warnedFewDatabases = false;

async function databaseCount(admin: Redis): Promise<number> {
  const reply = (await admin.config('GET', 'databases').catch(() => [])) as string[];
  const count = Number(reply[1] ?? 16);
  if (count < 64 && !warnedFewDatabases) {
    warnedFewDatabases = true;
    console.warn(`testRedis: the test Redis has only ${count} databases, so parallel tests may share one; start it with --databases 4096`);
  }
  return count;
}

function withRedisDb(url: string, db: number): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

async function flushRedis(url: string): Promise<void> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await r.flushdb();
  } finally {
    r.disconnect();
  }
}

export interface EphemeralServer {
  url: string;
  port: number;
  /** Stops the server (data kept); clients see the outage. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  start(): Promise<void>;
  /** Stops it and deletes its data; call in afterAll. */
  dispose(): Promise<void>;
}

/** A private Postgres a test can stop and start, e.g. to see /readyz turn 503. */
export async function startEphemeralPostgres(): Promise<EphemeralServer> {
  const dataDir = scratchPath(`eph-pg-${randomBytes(4).toString('hex')}`);
  const launch = (port?: number) => startPostgresServer({ dataDir, port, wipe: port === undefined, removeWhenOrphaned: [dataDir] });
  return ephemeral(await launch(), launch, dataDir);
}

/** A private redis-server a test can stop and start (same port; data is not kept). */
export async function startEphemeralRedis(): Promise<EphemeralServer> {
  return ephemeral(await startRedisServer(), (port) => startRedisServer({ port }));
}

interface Running {
  url: string;
  port: number;
  stop(): Promise<void>;
}

function ephemeral(first: Running, launch: (port: number) => Promise<Running>, dataDir?: string): EphemeralServer {
  let current: Running | undefined = first;
  const stop = async () => {
    const s = current;
    current = undefined;
    await s?.stop();
  };
  return {
    url: first.url,
    port: first.port,
    stop,
    async start() {
      current ??= await launch(first.port);
    },
    async dispose() {
      await stop();
      if (dataDir) await fsp.rm(dataDir, { recursive: true, force: true });
    },
  };
}
