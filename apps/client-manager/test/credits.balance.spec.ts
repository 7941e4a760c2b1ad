import { startClientManager, type Harness, type TestUser } from './harness';
import { CREDIT, grant, hold, internal } from './support/credits';
import { createKey } from './support/keys';

describe('GET /credits/balance', () => {
  let cm: Harness;
  let user: TestUser;
  beforeAll(async () => {
    cm = await startClientManager();
    user = await cm.createUser();
  });
  afterAll(() => cm.close());

  const balance = (key = user.key) => cm.call('GET', '/credits/balance', { key });

  it('answers zeros for a user who never had credits', async () => {
    expect((await balance()).body).toEqual({ userId: user.id, available: 0, held: 0, spent: 0 });
  });

  it('answers available, held and spent in units as credits move', async () => {
    await grant(cm, user.id, 10 * CREDIT);
    const { body: h } = await hold(cm, user.id, 4 * CREDIT, 'job-balance');
    await internal(cm, 'POST', `/credits/holds/${h.id}/settle`, { userId: user.id, amount: 1 * CREDIT });
    expect((await balance()).body).toEqual({ userId: user.id, available: 6 * CREDIT, held: 3 * CREDIT, spent: 1 * CREDIT });
  });

  it("shows only the caller's own balance", async () => {
    const other = await cm.createUser();
    expect((await balance(other.key)).body).toEqual({ userId: other.id, available: 0, held: 0, spent: 0 });
  });

  it('answers 403 for a key without credits:read', async () => {
    const { key } = await createKey(cm, user.key, { scopes: ['wallet:sign'] });
    expect((await balance(key)).status).toBe(403);
  });
});
