import { createDataSource } from '@ocg/db';
import { testDatabase } from '@ocg/testing';
import { migrations } from '../src/migrations';

describe('the schema', () => {
  it('migrates up, down and up again on a fresh database', async () => {
    const database = await testDatabase();
    const db = await createDataSource({ url: database.url, schema: 'deployment_manager', entities: [], migrations });
    try {
      const tables = async () => (await db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'deployment_manager' ORDER BY 1`)).map((r: { table_name: string }) => r.table_name);
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
    const db = await createDataSource({ url: database.url, schema: 'deployment_manager', entities: [], migrations });
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
