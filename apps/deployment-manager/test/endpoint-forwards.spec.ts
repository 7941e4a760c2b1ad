/** Endpoints a node forwards in its kernel (ADR 0092): stored from reports, answered in the gateway's route, announced on the routes channel. */
import type { Redis } from 'ioredis';
import { redisKeys } from '@ocg/redis';
import { waitFor } from '@ocg/testing';
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { runningJob } from './support/jobs';
import { INTERNAL_TOKEN, startManagers, type Managers, type TestUser } from './support/managers';
import { SignedNode } from './support/nodes';

describe('endpoint forwards', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let user: TestUser;
  let node: SignedNode;
  let market: string;
  let subscriber: Redis;
  const routes: { job: string; status: string; node: string | null }[] = [];

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    const created = await m.createMarket({ pricePerSecond: 1 });
    market = created.name;
    node = new SignedNode();
    await node.register(m, market, created.joinToken);
    user = await m.newUser(10_000_000);
    subscriber = dm.redis.duplicate();
    await subscriber.subscribe(redisKeys.jobRoutes());
    subscriber.on('message', (_channel: string, message: string) => routes.push(JSON.parse(message)));
  }, 120_000);

  afterAll(async () => {
    subscriber?.disconnect();
    await dm?.close();
    await m?.stop();
  });

  const route = async (job: string) => {
    const res = await dm.as(null, 'GET', `/internal/jobs/${job.toLowerCase()}`, undefined, { 'x-ocg-internal-token': INTERNAL_TOKEN });
    expect(res.status).toBe(200);
    return res.body;
  };
  const report = (job: string, endpoints: object[]) => node.send(dm.url, `/node-jobs/${job}/report`, { ops: [{ id: 'sleep', opIndex: 0, status: 'running' }], endpoints });
  /** The web endpoint on 8080 as the node reports it: ready, online, served at `<job>` and `<job>-8080`. */
  const web = (job: string, extra: object = {}) => ({
    op: 'sleep',
    port: 8080,
    host: `${job}-8080`,
    ready: true,
    online: true,
    forward: '10.1.2.3:40001',
    hosts: [job.toLowerCase(), `${job.toLowerCase()}-8080`],
    ...extra,
  });
  /** A RUNNING job whose claim's route message has come (so the ones after it are the reports'). */
  const running = async () => {
    const job = await runningJob(dm, user, node, market);
    await waitFor(() => routes.some((r) => r.job === job), { what: `the route message of ${job}'s claim` });
    return job;
  };
  const routesOf = (job: string) => routes.filter((r) => r.job === job);
  /** The stored row of the endpoint on 8080 (the route's SQL would hide some of what the report path got wrong). */
  const stored = async (job: string) => (await dm.db.query(`SELECT forward, hosts FROM job_endpoints WHERE job_address = $1 AND port = 8080`, [job]))[0];

  it('answers every label of a ready, online, forwarded endpoint with its forward, and none of the others', async () => {
    const job = await running();
    const lower = job.toLowerCase();
    const res = await report(job, [
      web(job, { hosts: [lower, `${lower}-8080`, `${lower}-abcdefghijkl-8080`] }),
      { op: 'sleep', port: 9000, host: `${job}-9000`, ready: true, online: true },
      { op: 'sleep', port: 9001, host: `${job}-9001`, ready: false, online: false, forward: '10.1.2.3:40003', hosts: [`${lower}-9001`] },
    ]);
    expect(res.status).toBe(200);
    expect(await route(job)).toEqual({
      job,
      status: 'RUNNING',
      node: node.address,
      forwards: { [lower]: '10.1.2.3:40001', [`${lower}-8080`]: '10.1.2.3:40001', [`${lower}-abcdefghijkl-8080`]: '10.1.2.3:40001' },
    });
  });

  it("keeps the report's own host among the labels when the node lists others", async () => {
    const job = await running();
    await report(job, [web(job, { hosts: [job.toLowerCase()] })]);
    expect((await route(job)).forwards).toEqual({ [job.toLowerCase()]: '10.1.2.3:40001', [`${job.toLowerCase()}-8080`]: '10.1.2.3:40001' });
    expect((await stored(job)).hosts.sort()).toEqual([job.toLowerCase(), `${job.toLowerCase()}-8080`]);
  });

  it('drops the labels of an endpoint gone offline, and of one no longer forwarded', async () => {
    const job = await running();
    await report(job, [web(job)]);
    expect(Object.keys((await route(job)).forwards)).toHaveLength(2);
    await report(job, [web(job, { online: false })]);
    expect((await route(job)).forwards).toEqual({});
    expect(await stored(job)).toMatchObject({ forward: null });
    await report(job, [web(job)]);
    expect(Object.keys((await route(job)).forwards)).toHaveLength(2);
    await report(job, [web(job, { forward: null })]);
    expect((await route(job)).forwards).toEqual({});
  });

  it('answers no forwards for a job that is not RUNNING', async () => {
    const job = await running();
    await report(job, [web(job)]);
    expect((await dm.as(user, 'POST', `/jobs/${job}/stop`)).status).toBe(200);
    expect(await route(job)).toEqual({ job, status: 'STOPPED', node: node.address, forwards: {} });
  });

  it('refuses a hosts entry of another job with 400 naming it, and stores none of it', async () => {
    const job = await running();
    const res = await report(job, [web(job, { hosts: [job.toLowerCase(), 'someoneelse-8080'] })]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '/endpoints/0/hosts/1', message: 'must be the job address or start with "<job address>-"' }]);
    expect((await route(job)).forwards).toEqual({});
  });

  it('publishes the route once for each report that changes a forward or its labels, and not for one that changes none', async () => {
    const job = await running();
    routes.splice(0);
    const expected = { job, status: 'RUNNING', node: node.address };
    await report(job, [{ op: 'sleep', port: 8080, host: `${job}-8080`, ready: true, online: true }]); // an endpoint event, no forward
    await report(job, [web(job)]); // a forward: published
    await waitFor(() => routesOf(job).length === 1, { what: 'the route message of the first forward' });
    await report(job, [web(job)]); // the same: not published
    await report(job, [web(job, { hosts: [job.toLowerCase()] }), { op: 'sleep', port: 9000, host: `${job}-9000`, ready: true, online: true }]); // the same labels (host is one)
    await report(job, [web(job, { forward: '10.1.2.3:40002' })]); // another forward: published
    await report(job, [web(job, { forward: '10.1.2.3:40002', hosts: [`${job.toLowerCase()}-8080`] })]); // a label less: published
    await report(job, [web(job, { forward: '10.1.2.3:40002', hosts: [`${job.toLowerCase()}-8080`], online: false })]); // offline: its forward is gone, published
    await waitFor(() => routesOf(job).length === 4, { what: 'the route messages of the changed forwards' });
    // Every message of this job went out on one connection in order: one from an unchanged report would have come before the last.
    expect(routesOf(job)).toEqual([expected, expected, expected, expected]);
  });
});
