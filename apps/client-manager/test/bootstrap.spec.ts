import { ALL_SCOPES } from '@ocg/contracts';
import { createLogger } from '@ocg/http';
import { startServices } from '../src/app';
import { startClientManager, type Harness } from './harness';
import { validate } from './support/keys';

describe('bootstrap admin (ADMIN_API_KEY)', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager({ env: { ADMIN_EMAIL: 'ops@example.com' } })));
  afterAll(() => cm.close());

  it('makes the configured key work for the operator user, with every scope', async () => {
    const body = await validate(cm, cm.adminKey);
    expect(body).toMatchObject({ valid: true, user: { email: 'ops@example.com', provider: 'local' }, scopes: ALL_SCOPES });
  });

  it('stores the key like any other: sealed, with a lookup hash, never as text', async () => {
    const rows = await cm.db.query('SELECT * FROM api_keys');
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(cm.adminKey);
  });

  it('is idempotent across restarts, and widens the key back to every scope', async () => {
    await cm.db.query(`UPDATE api_keys SET scopes = '{users:manage}'`);
    await startServices({ logger: createLogger({ service: 'test', level: 'silent' }), db: cm.db, redis: cm.redis, config: cm.config });
    await startServices({ logger: createLogger({ service: 'test', level: 'silent' }), db: cm.db, redis: cm.redis, config: cm.config });
    expect(await cm.db.query('SELECT count(*)::int AS n FROM users')).toEqual([{ n: 1 }]);
    expect((await cm.db.query('SELECT scopes FROM api_keys'))[0].scopes).toEqual(ALL_SCOPES);
    expect((await validate(cm, cm.adminKey)).scopes).toEqual(ALL_SCOPES);
  });
});
