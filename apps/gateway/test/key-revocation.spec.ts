/**
 * Disabled, deleted and expired keys fail everywhere within a second: two
 * gateways, each in front of its own host-manager and deployment-manager
 * (whose key caches are warm), sharing one client-manager, Postgres and Redis.
 */
import { generateApiKey } from '@ocg/auth';
import { freePorts, launchServices, testDatabase, testRedis, type LaunchedStack, type TestDatabase } from '@ocg/testing';

const TOKEN = 'internal-token-for-key-revocation';

async function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

/** Polls until `key` is refused through `gateway`, up to `withinMs`; answers how long that took. */
async function refusedWithin(gateway: string, key: string, path: string, withinMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const { status } = await call(gateway, key, 'GET', path);
    if (status === 401) return Date.now() - start;
    if (Date.now() - start > withinMs) throw new Error(`${path} through ${gateway} still answered ${status} after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('revoked keys fail on every instance within a second', () => {
  let database: TestDatabase;
  const stacks: LaunchedStack[] = [];
  const gateways: string[] = [];
  let adminKey: string;
  let userKey: string;
  const lines: string[] = [];

  beforeAll(async () => {
    database = await testDatabase();
    const redisUrl = (await testRedis()).url;
    adminKey = generateApiKey();
    const env = { INTERNAL_TOKEN: TOKEN, MASTER_KEY: 'a7'.repeat(32), ADMIN_API_KEY: adminKey };
    const fail = (err: Error) => Promise.reject(new Error(`${err.message}\n${lines.slice(-20).join('\n')}`));
    const first = await launchServices({
      databaseUrl: database.url,
      redisUrl,
      ports: await freePorts(['client-manager', 'host-manager', 'deployment-manager', 'gateway']),
      logLevel: 'warn',
      env,
      onLine: (line) => lines.push(line),
    }).catch(fail);
    stacks.push(first);
    const cm = first.urls['client-manager'];
    const second = await launchServices({
      only: ['host-manager', 'deployment-manager', 'gateway'],
      databaseUrl: database.url,
      redisUrl,
      ports: await freePorts(['host-manager', 'deployment-manager', 'gateway']),
      logLevel: 'warn',
      env: { ...env, CLIENT_MANAGER_URL: cm },
      serviceEnv: Object.fromEntries(['host-manager', 'deployment-manager', 'gateway'].map((s) => [s, { CLIENT_MANAGER_URL: cm }])),
      onLine: (line) => lines.push(line),
    }).catch(fail);
    stacks.push(second);
    gateways.push(first.urls.gateway, second.urls.gateway);
    const made = await call(gateways[0], adminKey, 'POST', '/users', { email: `revoke-${process.pid}@example.com`, name: 'Revoker' });
    userKey = made.body.apiKey.key;
  }, 240_000);

  afterAll(async () => {
    for (const stack of stacks.reverse()) await stack.stop();
    await database?.drop();
  });

  /** A fresh key, used through both gateways against both services behind them (their caches now hold it). */
  async function warmKey(body: object = {}): Promise<{ id: string; key: string }> {
    const made = await call(gateways[0], userKey, 'POST', '/api-keys', { name: 'revocable', ...body });
    expect(made.status).toBe(200);
    for (const gateway of gateways) {
      expect((await call(gateway, made.body.key, 'GET', '/jobs')).status).toBe(200); // deployment-manager
      expect((await call(gateway, made.body.key, 'GET', '/markets')).status).toBe(200); // host-manager
    }
    return made.body;
  }

  it.each([
    ['disabled', (id: string) => call(gateways[0], userKey, 'POST', `/api-keys/${id}/update`, { status: 'disabled' })],
    ['deleted', (id: string) => call(gateways[1], userKey, 'POST', `/api-keys/${id}/delete`)],
  ])('refuses a %s key through both gateways and every service within 1 s', async (_what, revoke) => {
    const key = await warmKey();
    expect((await revoke(key.id)).status).toBe(200);
    for (const gateway of gateways) {
      for (const path of ['/jobs', '/markets', '/api-keys']) expect(await refusedWithin(gateway, key.key, path, 1000)).toBeLessThanOrEqual(1000);
    }
  });

  it('refuses an expired key everywhere within 1 s of its expiry, whatever the caches hold', async () => {
    const key = await warmKey({ expiresIn: 3 });
    const record = await call(gateways[0], userKey, 'GET', `/api-keys/${key.id}`);
    const expiresAt = Date.parse(record.body.expiresAt);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now())));
    for (const gateway of gateways) {
      for (const path of ['/jobs', '/markets']) expect(await refusedWithin(gateway, key.key, path, Math.max(0, expiresAt + 1000 - Date.now()))).toBeLessThanOrEqual(1000);
    }
  });
});
