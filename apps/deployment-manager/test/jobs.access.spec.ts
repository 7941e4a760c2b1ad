import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { INTERNAL_TOKEN, startManagers, type Managers, type TestUser } from './support/managers';
import { sleeper } from './support/definitions';

describe("another user's jobs and content", () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let owner: TestUser;
  let stranger: TestUser;
  let job: { address: string; definitionCid: string };

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    const market = await m.createMarket({ pricePerSecond: 10 });
    owner = await m.newUser(10_000_000);
    stranger = await m.newUser(10_000_000);
    job = (await dm.as(owner, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 100 })).body;
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  it("answers 404 for another user's job, as for one that does not exist", async () => {
    const theirs = await dm.as(stranger, 'GET', `/jobs/${job.address}`);
    const none = await dm.as(stranger, 'GET', '/jobs/11111111111111111111111111111111');
    expect(theirs.status).toBe(404);
    expect(none.status).toBe(404);
    expect(theirs.body.message).toBe(`No job with the address ${job.address}`);
  });

  it("answers 404 to stopping or extending another user's job, and leaves it as it was", async () => {
    expect((await dm.as(stranger, 'POST', `/jobs/${job.address}/stop`)).status).toBe(404);
    expect((await dm.as(stranger, 'POST', `/jobs/${job.address}/extend`, { seconds: 10 })).status).toBe(404);
    expect((await dm.as(owner, 'GET', `/jobs/${job.address}`)).body).toMatchObject({ status: 'QUEUED', durationSeconds: 100 });
  });

  it("never lists another user's jobs", async () => {
    expect((await dm.as(stranger, 'GET', '/jobs')).body.jobs).toEqual([]);
    expect((await dm.as(owner, 'GET', '/jobs')).body.jobs.map((j: any) => j.address)).toEqual([job.address]);
  });

  it('answers 404 for content only another user may read, even with its id', async () => {
    expect((await dm.as(owner, 'GET', `/cas/${job.definitionCid}`)).status).toBe(200);
    const res = await dm.as(stranger, 'GET', `/cas/${job.definitionCid}`);
    expect(res.status).toBe(404);
    expect((await dm.as(stranger, 'POST', '/jobs', { definitionCid: job.definitionCid, market: 'anything' })).status).toBe(404);
  });

  it('lets a user read what they uploaded, and answers the same id for the same bytes', async () => {
    const a = await dm.as(stranger, 'POST', '/cas', { content: 'aGVsbG8=', encoding: 'base64' });
    const b = await dm.as(stranger, 'POST', '/cas', { content: 'hello' });
    expect(a.body).toEqual({ cid: 'bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq', size: 5 });
    expect(b.body).toEqual(a.body);
    const read = await dm.as(stranger, 'GET', `/cas/${a.body.cid}`);
    expect(read.headers.get('content-type')).toBe('application/octet-stream');
    expect(read.body).toBe('hello');
  });

  it('tells a service holding the internal credential which node serves a host name, ignoring case', async () => {
    const res = await dm.as(null, 'GET', `/internal/jobs/${job.address.toLowerCase()}`, undefined, { 'x-ocg-internal-token': INTERNAL_TOKEN });
    expect(res.body).toEqual({ job: job.address, status: 'QUEUED', node: null, forwards: {} });
    expect((await dm.as(owner, 'GET', `/internal/jobs/${job.address}`)).status).toBe(401);
  });

  it('answers 400 for text that is not a content id', async () => {
    const res = await dm.as(owner, 'GET', '/cas/not-a-cid');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/cid', message: 'expected a content id such as bafkrei…' }]);
  });
});
