import { startClientManager, type Harness } from './harness';

describe('client-manager schema', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager()));
  afterAll(() => cm.close());

  it('has entities that agree with the migrations: TypeORM would change nothing', async () => {
    const diff = await cm.db.driver.createSchemaBuilder().log();
    expect(diff.upQueries.map((q) => q.query)).toEqual([]);
  });

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
