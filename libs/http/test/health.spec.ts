import { healthRoutes } from '../src';
import { startApp, type TestServer } from './support';

describe('health routes', () => {
  let t: TestServer;
  let postgresUp = true;
  beforeAll(async () => {
    t = await startApp((app) => {
      app.use(
        healthRoutes({
          postgres: async () => {
            if (!postgresUp) throw new Error('connect ECONNREFUSED postgres://ocg:hunter2@127.0.0.1:5432/ocg');
          },
          redis: async () => undefined,
        }),
      );
      app.use('/hanging', healthRoutes({ redis: () => new Promise<void>(() => undefined), postgres: async () => undefined }, { timeoutMs: 100 }));
    });
  });
  afterAll(() => t.close());
  afterEach(() => {
    postgresUp = true;
  });

  it('answers /healthz 200 {status: ok}', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz 200 with each check and its time when all pass', async () => {
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; checks: Record<string, { ok: boolean; ms: number }> };
    expect(body.status).toBe('ready');
    expect(Object.keys(body.checks).sort()).toEqual(['postgres', 'redis']);
    expect(body.checks['postgres']).toEqual({ ok: true, ms: expect.any(Number) });
  });

  it('answers /readyz 503 naming the failing dependency without its password', async () => {
    postgresUp = false;
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { name: string; code: string; message: string; requestId: string; errors: unknown[] };
    expect(body).toMatchObject({ name: 'ServiceUnavailableError', code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(body.message).toBe('Not ready: postgres: connect ECONNREFUSED postgres://[Redacted]@127.0.0.1:5432/ocg');
    expect(body.errors).toEqual([{ path: '/checks/postgres', message: expect.stringContaining('ECONNREFUSED') }]);
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    expect(JSON.stringify(body) + t.logs.text()).not.toContain('hunter2');
  });

  it('answers /readyz 503 when a check hangs past its timeout, without hanging itself', async () => {
    const started = Date.now();
    const res = await fetch(`${t.url}/hanging/readyz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toBe('Not ready: redis: timed out after 100 ms');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
