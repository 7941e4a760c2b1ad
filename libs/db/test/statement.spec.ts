/** poolRows: a statement standing alone, sent on the data source's pool without TypeORM's query runner (ADR 0080). */
import { QueryFailedError, type DataSource } from 'typeorm';
import { testDatabase, type TestDatabase } from '@ocg/testing';
import { createDataSource, poolRows } from '../src';
import { migration } from './migrations';

let db: TestDatabase;
let ds: DataSource;
const logged: string[] = [];

beforeAll(async () => {
  db = await testDatabase();
  const things = migration('Things', 'CREATE TABLE things (id int PRIMARY KEY, name text NOT NULL)');
  ds = await createDataSource({
    url: db.url,
    schema: 'svc',
    entities: [],
    migrations: [things],
    slowQueryMs: 200,
    poolSize: 1,
    logging: true,
    log: (level, msg) => logged.push(`${level} ${msg}`),
  });
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

it('answers the rows of any statement, in the service schema, without a query runner of TypeORM', async () => {
  const runners = jest.spyOn(ds, 'createQueryRunner');
  expect(await poolRows(ds, 'INSERT INTO things VALUES ($1, $2), (2, $3) RETURNING id, name', [1, 'a', 'b'])).toEqual([
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
  ]);
  expect(await poolRows(ds, `UPDATE things SET name = name || '!' WHERE id = $1 RETURNING name`, [2])).toEqual([{ name: 'b!' }]);
  expect(await poolRows(ds, 'DELETE FROM things WHERE id = 3')).toEqual([]);
  expect(runners).not.toHaveBeenCalled();
  expect(logged).toContain('debug DELETE FROM things WHERE id = 3');
  runners.mockRestore();
});

it('prepares a named statement once on a connection and runs it again with other values', async () => {
  const byId = { name: 'test_thing_by_id', text: 'SELECT name FROM things WHERE id = $1' };
  expect(await poolRows(ds, byId, [1])).toEqual([{ name: 'a' }]);
  expect(await poolRows(ds, byId, [2])).toEqual([{ name: 'b!' }]);
  // One connection in this pool: the statement stays prepared on it.
  expect(await poolRows(ds, 'SELECT name, statement FROM pg_prepared_statements')).toEqual([{ name: byId.name, statement: byId.text }]);
});

it('throws a failure as TypeORM did (QueryFailedError with the driver’s code), logs it, and keeps the pool’s connections usable', async () => {
  for (let i = 0; i < 3; i++) {
    const err = await poolRows(ds, 'INSERT INTO things VALUES (1, $1)', ['again']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryFailedError);
    expect((err as QueryFailedError & { code?: string }).code).toBe('23505');
  }
  expect(logged.filter((l) => l.startsWith('debug query failed: INSERT INTO things') && /duplicate key/.test(l))).toHaveLength(3);
  expect(await poolRows(ds, 'SELECT count(*)::int AS n FROM things')).toEqual([{ n: 2 }]);
});

it('logs a statement slower than the data source’s bound', async () => {
  await poolRows(ds, 'SELECT pg_sleep(0.3)');
  expect(logged.some((l) => l.startsWith('warn') && /slow/i.test(l) && /pg_sleep/.test(l))).toBe(true);
});
