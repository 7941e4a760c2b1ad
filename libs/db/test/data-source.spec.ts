import { EntitySchema, type DataSource } from 'typeorm';
import pg from 'pg';
import { createDataSource, type DataSourceOptions } from '../src';
import { freePort, testDatabase, type TestDatabase } from '@ocg/testing';
import { migration } from './migrations';

let db: TestDatabase;
const opened: DataSource[] = [];

beforeEach(async () => {
  db = await testDatabase();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((ds) => ds.destroy()));
  await db.drop();
});

async function start(opts: Omit<DataSourceOptions, 'url' | 'entities'>): Promise<DataSource> {
  const ds = await createDataSource({ url: db.url, entities: [], ...opts });
  opened.push(ds);
  return ds;
}

async function sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client(db.url);
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const tablesOf = async (schema: string) =>
  (await sql<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [schema])).map((r) => r.table_name);

// Sleeps inside the migration so that concurrent starts overlap while it runs.
const logRun = migration('LogRun', 'CREATE TABLE run_log (at timestamptz DEFAULT now())', 'SELECT pg_sleep(0.3)', 'INSERT INTO run_log DEFAULT VALUES');

it('creates the service schema and keeps its migrations table and tables inside it', async () => {
  await start({ schema: 'client_manager', migrations: [migration('Things', 'CREATE TABLE things (id int)')] });
  expect(await tablesOf('client_manager')).toEqual(['migrations', 'things']);
  expect(await tablesOf('public')).toEqual([]);
});

it('runs a migration exactly once when the same service starts twice at once', async () => {
  const [a, b] = await Promise.all([start({ schema: 'svc', migrations: [logRun] }), start({ schema: 'svc', migrations: [logRun] })]);
  expect(await a.query('SELECT count(*)::int AS n FROM run_log')).toEqual([{ n: 1 }]);
  expect(await b.query('SELECT count(*)::int AS n FROM migrations')).toEqual([{ n: 1 }]);
});

it('keeps two services apart when both start at once with same-named tables', async () => {
  const items = (who: string) => migration('Items', 'CREATE TABLE items (owner text)', `INSERT INTO items VALUES ('${who}')`);
  const [a, b] = await Promise.all([start({ schema: 'svc_a', migrations: [items('a'), logRun] }), start({ schema: 'svc_b', migrations: [items('b'), logRun] })]);
  expect(await a.query('SELECT owner FROM items')).toEqual([{ owner: 'a' }]);
  expect(await b.query('SELECT owner FROM items')).toEqual([{ owner: 'b' }]);
  expect(await tablesOf('svc_a')).toEqual(['items', 'migrations', 'run_log']);
  expect(await tablesOf('svc_b')).toEqual(['items', 'migrations', 'run_log']);
});

it('applies only the new migration on the next start', async () => {
  const first = await start({ schema: 'svc', migrations: [logRun] });
  await first.destroy();
  opened.splice(opened.indexOf(first), 1);
  const later = await start({ schema: 'svc', migrations: [logRun, migration('Extra', 'CREATE TABLE extra (id int)')] });
  expect(await later.query('SELECT count(*)::int AS n FROM run_log')).toEqual([{ n: 1 }]);
  expect(await tablesOf('svc')).toEqual(['extra', 'migrations', 'run_log']);
});

it('rolls back only the failing migration and names the schema in the error', async () => {
  const good = migration('Good', 'CREATE TABLE good (id int)');
  const bad = migration('Bad', 'CREATE TABLE half_done (id int)', 'SELECT no_such_column FROM good');
  await expect(start({ schema: 'svc', migrations: [good, bad] })).rejects.toThrow(/^svc: database setup failed .*no_such_column/);
  expect(await tablesOf('svc')).toEqual(['good', 'migrations']);
  expect(await sql('SELECT name FROM svc.migrations')).toEqual([{ name: expect.stringMatching(/^Good\d+$/) }]);
});

it('reports each migration it runs to the log callback', async () => {
  const messages: string[] = [];
  await start({ schema: 'svc', migrations: [logRun], log: (level, msg) => messages.push(`${level}: ${msg}`) });
  expect(messages).toContainEqual(expect.stringMatching(/^info: Migration LogRun\d+ has been executed successfully/));
});

it('maps entities to the tables of the service schema', async () => {
  const Thing = new EntitySchema<{ id: number; name: string }>({
    name: 'Thing',
    tableName: 'things',
    columns: { id: { type: Number, primary: true }, name: { type: String } },
  });
  const createThings = migration('Things', 'CREATE TABLE things (id int PRIMARY KEY, name text NOT NULL)');
  const ds = await createDataSource({ url: db.url, schema: 'svc', entities: [Thing], migrations: [createThings] });
  opened.push(ds);
  await ds.getRepository(Thing).save({ id: 1, name: 'one' });
  expect(await sql('SELECT name FROM svc.things')).toEqual([{ name: 'one' }]);
});

it('never creates tables from entities (synchronize is off)', async () => {
  const ds = await start({ schema: 'svc', migrations: [] });
  expect(ds.options.synchronize).toBe(false);
  expect(await tablesOf('svc')).toEqual(['migrations']);
});

it('rejects a schema name that would need quoting', async () => {
  await expect(start({ schema: 'Client-Manager', migrations: [] })).rejects.toThrow(/invalid schema name "Client-Manager"/);
});

it('reports an unreachable Postgres without revealing the password', async () => {
  const url = `postgres://svc:hunter2@127.0.0.1:${await freePort()}/x`;
  const attempt = createDataSource({ url, schema: 'svc', entities: [], migrations: [] });
  await expect(attempt).rejects.toThrow(/cannot connect to Postgres at postgres:\/\/svc:\*\*\*@127\.0\.0\.1:\d+\/x: .*ECONNREFUSED/);
  await expect(attempt).rejects.not.toThrow(/hunter2/);
});
