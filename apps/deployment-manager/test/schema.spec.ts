import { createDataSource } from '@ocg/db';
import { testDatabase } from '@ocg/testing';
import { entities } from '../src/entities';
import { JobHoldEntity } from '../src/jobs/job-hold.entity';
import { migrations } from '../src/migrations';

describe('the schema', () => {
  it('has entities that agree with the migrations: TypeORM would change nothing', async () => {
    const database = await testDatabase();
    const db = await createDataSource({ url: database.url, schema: 'deployment_manager', entities, migrations });
    try {
      const pending = await db.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
      // The check sees an entity that drifts from the migrations: here a default the migration does not set.
      const applied = db.getMetadata(JobHoldEntity).findColumnWithDatabaseName('applied');
      if (!applied) throw new Error('job_holds.applied has no column metadata');
      applied.default = true;
      const drifted = await db.driver.createSchemaBuilder().log();
      expect(drifted.upQueries.map((q) => q.query)).toEqual([`ALTER TABLE "job_holds" ALTER COLUMN "applied" SET DEFAULT true`]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it('migrates up, down and up again on a fresh database', async () => {
    const database = await testDatabase();
    const db = await createDataSource({ url: database.url, schema: 'deployment_manager', entities, migrations });
    try {
      const tables = async () =>
        (await db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'deployment_manager' ORDER BY 1`)).map((r: { table_name: string }) => r.table_name);
      expect(await tables()).toEqual(['blob_readers', 'blobs', 'job_endpoints', 'job_extend_requests', 'job_holds', 'job_ops', 'job_post_requests', 'jobs', 'migrations']);
      for (const _ of migrations) await db.undoLastMigration();
      expect(await tables()).toEqual(['migrations']);
      await db.runMigrations();
      expect(await tables()).toHaveLength(9);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it('refuses a finished job without an end time, and a duration beyond its maximum', async () => {
    const database = await testDatabase();
    const db = await createDataSource({ url: database.url, schema: 'deployment_manager', entities, migrations });
    try {
      await db.query(`INSERT INTO blobs (cid, bytes, size) VALUES ('c', '\\x00', 1)`);
      const insert = (status: string, finished: string, duration: number) =>
        db.query(
          `INSERT INTO jobs (address, address_lower, user_id, poster_address, market_address, status, definition_cid, definition, exposes, price_per_second, duration_seconds, max_duration_seconds, finished_at)
           VALUES (md5(random()::text), md5(random()::text), 'u', 'p', 'm', $1, 'c', '{}', false, 1, $2, 10, ${finished})`,
          [status, duration],
        );
      await expect(insert('STOPPED', 'NULL', 5)).rejects.toThrow(/check constraint/);
      await expect(insert('RUNNING', 'now()', 5)).rejects.toThrow(/check constraint/);
      await expect(insert('QUEUED', 'NULL', 11)).rejects.toThrow(/check constraint/);
      await expect(insert('QUEUED', 'NULL', 10)).resolves.toBeDefined();
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
