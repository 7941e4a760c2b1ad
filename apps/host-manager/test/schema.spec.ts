import type { DataSource } from 'typeorm';
import { Check, Column, Entity, Index } from 'typeorm';
import { createDataSource } from '@ocg/db';
import { testDatabase } from '@ocg/testing';
import { BenchmarkEntity, entities } from '../src/entities';
import { migrations } from '../src/migrations';

// BenchmarkEntity after edits the migrations do not follow (no other entity refers to it, so it can be swapped alone).
@Entity({ name: 'benchmarks' })
class BenchmarkWithANewColumn extends BenchmarkEntity {
  @Column({ type: 'text', default: '' })
  note!: string;
}

@Entity({ name: 'benchmarks' })
@Index('benchmarks_created_at_idx', ['createdAt'])
class BenchmarkWithANewIndex extends BenchmarkEntity {}

@Entity({ name: 'benchmarks' })
@Check('benchmarks_slug_check', `slug <> ''`)
class BenchmarkWithANewCheck extends BenchmarkEntity {}

describe('the schema', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  const open = (list: typeof entities) => createDataSource({ url: database.url, schema: 'host_manager', entities: list, migrations });
  /** What TypeORM's schema builder would run to make the database match these entities. */
  const pending = async (db: DataSource) => (await db.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query);

  beforeAll(async () => (database = await testDatabase()));
  afterAll(() => database.drop());

  it('has entities and migrations that agree (TypeORM would change nothing)', async () => {
    const db = await open(entities);
    try {
      expect(await pending(db)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it('has an entity for every table the migrations create', async () => {
    const db = await open(entities);
    try {
      const rows: { table_name: string }[] = await db.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'host_manager' AND table_type = 'BASE TABLE' AND table_name <> 'migrations'`,
      );
      expect(rows.map((r) => r.table_name).sort()).toEqual(db.entityMetadatas.map((m) => m.tableName).sort());
    } finally {
      await db.destroy();
    }
  });

  it.each([
    ['a column added', BenchmarkWithANewColumn, /^ALTER TABLE "benchmarks" ADD "note" text/],
    ['an index added', BenchmarkWithANewIndex, /^CREATE INDEX "benchmarks_created_at_idx" ON "benchmarks"/],
    ['a check added', BenchmarkWithANewCheck, /^ALTER TABLE "benchmarks" ADD CONSTRAINT "benchmarks_slug_check" CHECK/],
  ])('notices an entity that no longer matches the migrations: %s', async (_, altered, change) => {
    const db = await open([...entities.filter((e) => e !== BenchmarkEntity), altered]);
    try {
      expect(await pending(db)).toContainEqual(expect.stringMatching(change));
    } finally {
      await db.destroy();
    }
  });
});
