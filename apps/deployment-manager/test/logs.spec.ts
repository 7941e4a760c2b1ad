import { createDataSource } from '@ocg/db';
import { ConfigError } from '@ocg/http';
import { loadConfig } from '../src/config';
import { entities } from '../src/entities';
import { migrations } from '../src/migrations';
import { definition, runOp } from './support/definitions';
import { startDeploymentManager, deploymentManagerEnv, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, type Managers, type TestUser } from './support/managers';

const MARKER = 'LOG-MARKER-3fa7';

/** Secrets where a definition carries them: env values and a registry password. */
const secretDefinition = () =>
  definition([
    runOp('app', 'sleep 3600', {
      args: { env: { TOKEN: `${MARKER}-env` }, authentication: { docker: { username: 'u', password: `${MARKER}-registry`, server: 'registry.example' } } },
    }),
  ]);

describe('log hygiene', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let user: TestUser;
  let market: string;

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m, {}, { level: 'trace' });
    market = (await m.createMarket({ pricePerSecond: 1 })).name;
    user = await m.newUser(10_000_000);
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  it('never logs a definition or its secrets, on success or on a database error', async () => {
    expect((await dm.as(user, 'POST', '/jobs', { definition: secretDefinition(), market, durationSeconds: 60 })).status).toBe(200);
    const upload = await dm.as(user, 'POST', '/cas', { content: JSON.stringify(secretDefinition()) });
    expect((await dm.as(user, 'GET', `/cas/${upload.body.cid}`)).status).toBe(200);
    for (const table of ['jobs', 'blobs', 'blob_readers']) {
      await dm.db.query(`ALTER TABLE ${table} ADD CONSTRAINT test_refuse CHECK (false) NOT VALID`);
      try {
        const res = await dm.as(user, 'POST', '/jobs', {
          definition: definition([runOp('other', `echo ${MARKER}-${table}`, { args: { env: { K: `${MARKER}-${table}` } } })]),
          market,
        });
        expect(res.status).toBe(500);
      } finally {
        await dm.db.query(`ALTER TABLE ${table} DROP CONSTRAINT test_refuse`);
      }
    }
    const text = dm.logs.text();
    expect(text).toContain('test_refuse'); // each failure was logged
    expect(text).not.toContain(MARKER);
  });

  it('never logs a parameter Postgres quotes back in its message', async () => {
    const lines: string[] = [];
    const db = await createDataSource({ url: m.databaseUrl, schema: 'deployment_manager', entities, migrations, logging: true, log: (_level, msg) => lines.push(msg) });
    try {
      await expect(db.query('SELECT $1::int', [`${MARKER}-param`])).rejects.toThrow(/invalid input syntax/);
    } finally {
      await db.destroy();
    }
    expect(lines.join('\n')).toContain('query failed');
    expect(lines.join('\n')).not.toContain(MARKER);
  });

  it('names a rejected setting without printing its value', () => {
    const problems = (env: Record<string, string>): string => {
      try {
        loadConfig({ ...deploymentManagerEnv(m), ...env });
        return '';
      } catch (err) {
        return (err as ConfigError).message;
      }
    };
    const fields = problems({ INTERNAL_TOKEN: `${MARKER}`.slice(0, 10), NODE_DOMAIN: `bad domain ${MARKER}`, MAX_UPLOADS_PER_USER: MARKER, PUBLIC_URL: `not a url ${MARKER}` });
    for (const name of ['INTERNAL_TOKEN', 'NODE_DOMAIN', 'MAX_UPLOADS_PER_USER', 'PUBLIC_URL']) expect(fields).toContain(name);
    const key = problems({ MASTER_KEY: `${MARKER}-master` });
    expect(key).toContain('MASTER_KEY');
    expect(fields + key).not.toContain(MARKER.slice(0, 10));
  });
});
