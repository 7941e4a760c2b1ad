/**
 * Who sees what on a job page: the poster, signed in, sees output, reasons,
 * content ids and private endpoints; another user and an anonymous visitor
 * holding the same link see the public view. Real client-manager,
 * host-manager, deployment-manager and gateway processes; what a node would
 * report is written to deployment-manager's tables (no node runs here).
 */
import pg from 'pg';
import { generateApiKey } from '@ocg/auth';
import { freePorts, launchServices, testDatabase, testRedis, type LaunchedStack, type TestDatabase } from '@ocg/testing';

const SERVICES = ['client-manager', 'host-manager', 'deployment-manager', 'gateway'];
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const OUTPUT = 'OUTPUT-MARKER-77c1';
const REASON = 'REASON-MARKER-1b9e';
const PASSWORD = 'correct horse battery staple';

async function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

describe('job page access', () => {
  let database: TestDatabase;
  let stack: LaunchedStack;
  let gateway: string;
  let job: { address: string; definitionCid: string };
  let adminKey: string;
  let posterKey: string;
  let marketName: string;
  const lines: string[] = [];
  const cookies: Record<string, string> = {};

  const page = async (cookie?: string) => {
    const res = await fetch(`${gateway}/jobs/${job.address}`, { headers: { accept: BROWSER, ...(cookie ? { cookie } : {}) } });
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    database = await testDatabase();
    const ports = await freePorts(SERVICES);
    gateway = `http://127.0.0.1:${ports.gateway}`;
    adminKey = generateApiKey();
    stack = await launchServices({
      databaseUrl: database.url,
      redisUrl: (await testRedis()).url,
      ports,
      logLevel: 'debug', // every line a service writes, so the log test below sees them all
      env: { INTERNAL_TOKEN: 'internal-token-for-page-access', MASTER_KEY: 'e1'.repeat(32), ADMIN_API_KEY: adminKey, NODE_DOMAIN: 'nodes.test' },
      onLine: (line) => lines.push(line),
    }).catch((err: Error) => Promise.reject(new Error(`${err.message}\n${lines.slice(-20).join('\n')}`)));
    const market = { name: `Access pool ${process.pid}`, pricePerSecond: 1 };
    marketName = market.name;
    await call(gateway, adminKey, 'POST', '/markets', market);
    const keys: Record<string, string> = {};
    for (const who of ['poster', 'other']) {
      const email = `${who}-${process.pid}-${Date.now()}@example.com`;
      const { user, apiKey } = await call(gateway, adminKey, 'POST', '/users', { email, name: who, password: PASSWORD });
      await call(gateway, adminKey, 'POST', '/credits/grant', { userId: user.id, amount: 10_000_000, reason: 'page access' });
      keys[who] = apiKey.key;
      const login = await fetch(`${gateway}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
      expect(login.status).toBe(200);
      cookies[who] = (login.headers.get('set-cookie') ?? '').split(';')[0];
    }
    const op = (id: string, port: number, extra: object = {}) => ({ type: 'container/run', id, args: { image: 'busybox', cmd: ['sleep', '60'], expose: port, ...extra } });
    const definition = { version: '0.1', type: 'container', ops: [op('site', 8080), op('admin', 9090, { private: true })] };
    posterKey = keys.poster;
    job = await call(gateway, keys.poster, 'POST', '/jobs', { definition, market: market.name, durationSeconds: 60 });

    // What a node would have reported: output, a failure reason quoting it, both endpoints.
    await withDb(async (db) => {
      await db.query(`SET search_path TO deployment_manager`);
      await db.query(
        `INSERT INTO job_ops (job_address, op_id, op_index, grp, status, exit_code, reason, restarts, log_tail) VALUES
         ($1, 'site', 0, 'site', 'running', NULL, NULL, 0, $2), ($1, 'admin', 1, 'admin', 'failed', 1, $3, 0, $2)`,
        [job.address, JSON.stringify([{ stream: 'stdout', text: `token=${OUTPUT}` }]), `exited 1: ${REASON}`],
      );
      await db.query(`INSERT INTO job_endpoints (job_address, op_id, port, host_label, status) VALUES ($1, 'site', 8080, $2, 'ONLINE'), ($1, 'admin', 9090, $3, 'ONLINE')`, [
        job.address,
        `${job.address}-8080`.toLowerCase(),
        `${job.address}-9090`.toLowerCase(),
      ]);
    });
  }, 180_000);

  const withDb = async (run: (db: pg.Client) => Promise<unknown>): Promise<void> => {
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      await run(db);
    } finally {
      await db.end();
    }
  };

  afterAll(async () => {
    await stack?.stop();
    await database?.drop();
  });

  it('shows the poster, signed in, the output, reasons, definition and private endpoints', async () => {
    const { status, text } = await page(cookies.poster);
    expect(status).toBe(200);
    expect(text).toContain(OUTPUT);
    expect(text).toContain(REASON);
    expect(text).toContain(job.definitionCid);
    expect(text).toContain('9090');
  });

  it.each([
    ['another user, signed in', 'other'],
    ['an anonymous visitor', undefined],
    ['a visitor with a forged session cookie', 'forged'],
  ])('shows %s the public view: status, market, times and public endpoints only', async (_who, as) => {
    const cookie = as === 'forged' ? 'ocg_session=not-a-session' : as ? cookies[as] : undefined;
    const { status, text } = await page(cookie);
    expect(status).toBe(200);
    expect(text).toContain('QUEUED');
    expect(text).toContain(`${job.address}-8080`.toLowerCase());
    for (const secret of [OUTPUT, REASON, job.definitionCid, '9090']) expect(text).not.toContain(secret);
    expect(text).toContain('shown to the job');
  });

  it("keeps a definition's secrets, passwords and SQL parameters out of every service's log, database errors included", async () => {
    const secret = 'LOGS-MARKER-a51f';
    const op = {
      type: 'container/run',
      id: 'app',
      args: { image: 'busybox', env: { TOKEN: `${secret}-env` }, authentication: { docker: { username: 'u', password: `${secret}-registry` } } },
    };
    const definition = { version: '0.1', type: 'container', ops: [op] };
    expect(
      (
        await fetch(`${gateway}/jobs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${posterKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ definition, market: marketName, durationSeconds: 60 }),
        })
      ).status,
    ).toBe(200);
    const login = await fetch(`${gateway}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nobody@example.com', password: `${secret}-password` }),
    });
    expect(login.status).toBe(401);
    // Database errors in two services: every insert into these tables now fails a check.
    await withDb((db) =>
      db.query(
        `ALTER TABLE client_manager.users ADD CONSTRAINT log_test CHECK (false) NOT VALID; ALTER TABLE deployment_manager.jobs ADD CONSTRAINT log_test CHECK (false) NOT VALID`,
      ),
    );
    try {
      const user = await fetch(`${gateway}/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: `${secret}@example.com`, name: 'x', password: `${secret}-password` }),
      });
      expect(user.status).toBe(500);
      const posted = await fetch(`${gateway}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${posterKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ definition, market: marketName }),
      });
      expect(posted.status).toBe(500);
    } finally {
      await withDb((db) => db.query(`ALTER TABLE client_manager.users DROP CONSTRAINT log_test; ALTER TABLE deployment_manager.jobs DROP CONSTRAINT log_test`));
    }
    const text = lines.join('\n');
    expect(text).toContain('log_test'); // the failures were logged, by the constraint's name
    for (const service of ['client-manager', 'host-manager', 'deployment-manager', 'gateway']) expect(lines.some((l) => new RegExp(`^${service} *\\|`).test(l))).toBe(true);
    expect(text).not.toContain(secret);
  });
});
