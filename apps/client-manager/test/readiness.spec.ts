import { startEphemeralPostgres } from '@ocg/testing';
import { startClientManager, type Harness } from './harness';

describe('client-manager readiness', () => {
  let pg: Awaited<ReturnType<typeof startEphemeralPostgres>>;
  let cm: Harness;

  beforeAll(async () => {
    pg = await startEphemeralPostgres();
    cm = await startClientManager(pg.url);
  });
  afterAll(async () => {
    await cm.close();
    await pg.stop();
  });

  it('answers /healthz while the process is up', async () => {
    expect((await fetch(`${cm.url}/healthz`)).status).toBe(200);
  });

  it('reports ready while Postgres and Redis answer', async () => {
    const res = await fetch(`${cm.url}/readyz`);
    expect(res.status).toBe(200);
    expect((await (res.json() as Promise<any>)).checks).toMatchObject({ postgres: { ok: true }, redis: { ok: true } });
  });

  it('turns 503 with the error shape when Postgres stops, and ready again when it is back', async () => {
    await pg.stop();
    const down = await fetch(`${cm.url}/readyz`);
    expect(down.status).toBe(503);
    const body = await (down.json() as Promise<any>);
    expect(body).toMatchObject({ name: 'ServiceUnavailableError', code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(body.message).toMatch(/postgres/);
    expect((await fetch(`${cm.url}/healthz`)).status).toBe(200);
    await pg.start();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await fetch(`${cm.url}/readyz`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
  });
});
