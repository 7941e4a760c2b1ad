/**
 * The sweeper does not act on what it could not observe: right after its
 * Postgres was unreachable, a claim whose acknowledgement may have been
 * refused by the outage is not put back in the queue until a whole lease
 * has passed with Postgres answering.
 */
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { createDataSource } from '@ocg/db';
import { createLogger } from '@ocg/http';
import { createRedis } from '@ocg/redis';
import { startEphemeralPostgres, testRedis, waitFor, type EphemeralServer } from '@ocg/testing';
import { loadConfig } from '../src/config';
import { entities } from '../src/entities';
import { migrations } from '../src/migrations';
import { composeServices, type DeploymentManagerServices } from '../src/services';

const LEASE_SECONDS = 8;

describe('the sweeper after a Postgres outage', () => {
  let postgres: EphemeralServer;
  let db: DataSource;
  let redis: Redis;
  let services: DeploymentManagerServices;

  beforeAll(async () => {
    postgres = await startEphemeralPostgres();
    db = await createDataSource({ url: postgres.url, schema: 'deployment_manager', entities, migrations });
    redis = createRedis((await testRedis()).url, { onError: () => undefined });
    const settings = { ...loadConfig({ DATABASE_URL: postgres.url, REDIS_URL: 'redis://127.0.0.1:1', DEVELOPMENT_MACHINE: 'true' }), CLAIM_ACK_SECONDS: LEASE_SECONDS };
    services = composeServices({ logger: createLogger({ service: 'sweeper-outage', level: 'silent' }), db, redis, settings });
  }, 60_000);

  afterAll(async () => {
    await services?.sweeper.stop();
    services?.waker.close();
    await db?.destroy().catch(() => undefined);
    redis?.disconnect();
    await postgres?.dispose();
  });

  const status = async (address: string) => ((await db.query(`SELECT status FROM jobs WHERE address = $1`, [address])) as { status: string }[])[0].status;

  it('keeps an unacknowledged claim until a lease has passed with Postgres answering, then requeues it', async () => {
    await db.query(`INSERT INTO blobs (cid, bytes, size) VALUES ('bafkreitest', '\\x7b7d', 2)`);
    await db.query(
      `INSERT INTO jobs (address, address_lower, user_id, poster_address, market_address, node_address, status, definition_cid, definition, exposes,
                         price_per_second, duration_seconds, max_duration_seconds, started_at, ends_at, last_seen_at)
       VALUES ('JobClaimedBeforeTheOutage', 'jobclaimedbeforetheoutage', 'usr_1', 'Poster', 'Market', 'Node', 'RUNNING', 'bafkreitest', '{}', false,
               1, 600, 600, now() - interval '20 seconds', now() + interval '580 seconds', now() - interval '20 seconds')`,
    );
    await postgres.stop();
    await services.sweeper.sweep(); // every step fails: nothing can be observed
    const failedAt = Date.now();
    await postgres.start();
    await waitFor(() => db.query('SELECT 1').then(() => true), { timeoutMs: 20_000, what: 'Postgres to answer again' });
    await services.sweeper.sweep();
    expect(Date.now() - failedAt).toBeLessThan(LEASE_SECONDS * 1000);
    expect(await status('JobClaimedBeforeTheOutage')).toBe('RUNNING');
    await new Promise((r) => setTimeout(r, Math.max(0, failedAt + LEASE_SECONDS * 1000 + 200 - Date.now())));
    await services.sweeper.sweep();
    expect(await status('JobClaimedBeforeTheOutage')).toBe('QUEUED');
  }, 60_000);
});
