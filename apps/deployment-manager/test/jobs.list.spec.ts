import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, type Managers, type TestUser } from './support/managers';
import { sleeper } from './support/definitions';

describe('GET /jobs', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let user: TestUser;
  const posted: string[] = [];

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    const market = await m.createMarket({ pricePerSecond: 1 });
    user = await m.newUser(10_000_000);
    for (let i = 0; i < 7; i++) posted.push((await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 10 })).body.address);
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  it('pages through every job of the caller, newest first, each once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await dm.as(user, 'GET', `/jobs?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.jobs.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.jobs.map((j: any) => j.address));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...posted].reverse());
  });

  it('lists summaries: status and money, no ops or endpoints', async () => {
    const res = await dm.as(user, 'GET', '/jobs?limit=1');
    expect(res.body.jobs[0]).toMatchObject({ address: posted[6], status: 'QUEUED', totalPrice: 10, settlement: 'open' });
    expect(res.body.jobs[0].ops).toBeUndefined();
  });

  it('refuses a cursor it did not make and a limit out of range', async () => {
    expect((await dm.as(user, 'GET', '/jobs?cursor=garbage')).body.errors).toEqual([{ path: '/cursor', message: 'is not a cursor from a previous page' }]);
    expect((await dm.as(user, 'GET', '/jobs?limit=0')).status).toBe(400);
    expect((await dm.as(user, 'GET', '/jobs?limit=201')).status).toBe(400);
  });
});
