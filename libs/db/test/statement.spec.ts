/** poolRows: a statement standing alone, sent on the data source's pool without TypeORM's query runner (ADR 0080). */
import net from 'node:net';
import { QueryFailedError, type DataSource } from 'typeorm';
import { testDatabase, waitFor, type TestDatabase } from '@ocg/testing';
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

describe.each([
  ['the server ends it (fast shutdown: an error message, then the end)', 'terminate'],
  ['it is reset (no message)', 'reset'],
])('a connection lost under a statement: %s', (_what, how) => {
  it('fails the statement, drops the connection from the pool and crashes nothing', async () => {
    // A pool reaching Postgres through a relay of this test's, so the connection can be cut without a word.
    const sockets: net.Socket[] = [];
    const target = new URL(db.url);
    const relay = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      sockets.push(client);
      client.pipe(upstream).pipe(client);
      client.on('error', () => undefined);
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const via = new URL(db.url);
    via.port = String((relay.address() as net.AddressInfo).port);
    const cut = await createDataSource({ url: via.href, schema: 'svc', entities: [], migrations: [], poolSize: 1 });
    // Without a listener on the checked-out connection, node-pg's 'error' event is thrown out of the socket's callback: the service dies.
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const [{ pid }] = await poolRows<{ pid: number }>(cut, 'SELECT pg_backend_pid() AS pid');
      const sleeping = poolRows(cut, 'SELECT pg_sleep(5)').catch((e: unknown) => e);
      await waitFor(async () => (await poolRows(ds, `SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'`, [pid])).length === 1, {
        what: 'the sleep to run',
      });
      if (how === 'terminate') await poolRows(ds, 'SELECT pg_terminate_backend($1)', [pid]);
      else for (const s of sockets) s.resetAndDestroy();
      expect(await sleeping).toBeInstanceOf(QueryFailedError);
      await new Promise((r) => setTimeout(r, 100)); // a socket's end or error follows
      expect(uncaught).toEqual([]);
      // The next statement gets a new connection (another backend).
      const [{ pid: next }] = await poolRows<{ pid: number }>(cut, 'SELECT pg_backend_pid() AS pid');
      expect(next).not.toBe(pid);
    } finally {
      process.off('uncaughtException', onUncaught);
      await cut.destroy();
      relay.close();
    }
  });
});
