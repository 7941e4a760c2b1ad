import { createDataSource } from '@ocg/db';
import { testDatabase } from '@ocg/testing';
import { entities } from '../src/entities';
import { migrations } from '../src/migrations';

it('has entities and migrations that agree (TypeORM would change nothing)', async () => {
  const database = await testDatabase();
  const db = await createDataSource({ url: database.url, schema: 'host_manager', entities, migrations });
  try {
    const pending = await db.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  } finally {
    await db.destroy();
    await database.drop();
  }
});
