import { MIGRATIONS_TABLE } from '@ocg/db';
import { startClientManager, type Harness } from './harness';

describe('client-manager schema', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager()));
  afterAll(() => cm.close());

  /** What TypeORM's schema builder would run to make the database match the entities. */
  const pendingChanges = async (): Promise<string[]> => (await cm.db.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query);

  it('has entities that agree with the migrations: TypeORM would change nothing', async () => {
    expect(await pendingChanges()).toEqual([]);
  });

  it('has one entity for every table the migrations create', async () => {
    const tables = (await cm.db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'client_manager' AND table_name <> $1`, [MIGRATIONS_TABLE])) as {
      table_name: string;
    }[];
    const entityTables = cm.db.entityMetadatas.map((e) => e.tableName);
    expect([...entityTables].sort()).toEqual(tables.map((t) => t.table_name).sort());
  });

  // The check is only as good as what it notices: an entity altered in one column makes it answer a change to that table.
  it.each(['users', 'api_keys', 'deleted_bootstrap_keys', 'sessions', 'credit_balances', 'credit_holds', 'credit_transactions', 'credit_entries', 'credit_grant_requests'])(
    'notices an altered entity of %s',
    async (table) => {
      const column = cm.db.entityMetadatas.find((e) => e.tableName === table)!.columns.find((c) => !c.isPrimary)!;
      column.isNullable = !column.isNullable;
      try {
        expect(await pendingChanges()).toEqual(expect.arrayContaining([expect.stringContaining(`ALTER TABLE "${table}"`)]));
      } finally {
        column.isNullable = !column.isNullable;
      }
      expect(await pendingChanges()).toEqual([]);
    },
  );

  it('refuses a ledger transaction whose entries do not sum to zero', async () => {
    const user = await cm.createUser();
    await expect(
      cm.db.transaction(async (m) => {
        await m.query(`INSERT INTO credit_transactions (id, kind, user_id) VALUES ('ctx_bad', 'grant', $1)`, [user.id]);
        await m.query(`INSERT INTO credit_entries (transaction_id, account, amount) VALUES ('ctx_bad', 'user:x:available', 5)`);
      }),
    ).rejects.toThrow(/does not sum to zero/);
  });
});
