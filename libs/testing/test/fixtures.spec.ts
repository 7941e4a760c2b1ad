import pg from 'pg';
import { Redis } from 'ioredis';
import { testDatabase, testRedis } from '../src';

async function query(url: string, sql: string) {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

it('gives each caller its own empty database', async () => {
  const [a, b] = await Promise.all([testDatabase(), testDatabase()]);
  expect(a.name).not.toBe(b.name);
  await query(a.url, 'CREATE TABLE only_in_a (id int)');
  expect(await query(b.url, "SELECT to_regclass('only_in_a') AS t")).toEqual([{ t: null }]);
  await Promise.all([a.drop(), b.drop()]);
});

it('drops the database for good', async () => {
  const db = await testDatabase();
  await db.drop();
  await expect(query(db.url, 'SELECT 1')).rejects.toThrow(/does not exist/);
});

it('gives each caller its own Redis database, and flush empties only that one', async () => {
  const [a, b] = await Promise.all([testRedis(), testRedis()]);
  expect(a.db).not.toBe(b.db);
  const ra = new Redis(a.url);
  const rb = new Redis(b.url);
  try {
    await ra.set('k', 'a');
    await rb.set('k', 'b');
    await a.flush();
    expect(await ra.get('k')).toBeNull();
    expect(await rb.get('k')).toBe('b');
  } finally {
    ra.disconnect();
    rb.disconnect();
  }
});
