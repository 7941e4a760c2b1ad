/**
 * Issue 21, item 2: the data plane outlives the control plane. A job runs
 * behind a real node agent; deployment-manager is killed (-9), then Redis,
 * then Postgres are stopped, one after the other, and the job's endpoint
 * answers 200 on every poll (one a second) throughout. With the control
 * plane up, a stopped job's endpoint answers 404 within 2 s, and a flood of
 * unknown hosts costs a bounded number of lookups.
 *
 * OUTAGE_SECONDS (default 60, as the issue measures) shortens each outage.
 */
import { ensureBusyboxImage, waitFor, type LaunchedStack } from '@ocg/testing';
import { call, NODE_DOMAIN, startAgent, startControlPlane, Stores, userAndMarket, viaHost, webJob, type AgentProcess, type ControlPlane } from './support/control-plane';

const OUTAGE_SECONDS = Number(process.env.OUTAGE_SECONDS ?? 60);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the data plane without its control plane', () => {
  const stores = new Stores();
  let cp: ControlPlane;
  let gateway: LaunchedStack;
  let gatewayUrl: string;
  let agent: AgentProcess;
  let user: { key: string; market: { name: string; joinToken: string } };

  beforeAll(async () => {
    await ensureBusyboxImage();
    await stores.start();
    cp = await startControlPlane(stores);
    await cp.startDeploymentManager();
    gateway = await cp.startGateway();
    gatewayUrl = gateway.urls.gateway;
    user = await userAndMarket(cp);
    agent = await startAgent(gatewayUrl, user.market);
  }, 180_000);

  afterAll(async () => {
    await agent?.stop();
    await cp?.stop();
    await stores.stop();
  }, 120_000);

  const postRunningJob = async (): Promise<string> => {
    const posted = await call(gatewayUrl, 'POST', '/jobs', { key: user.key, body: { market: user.market.name, definition: webJob(), durationSeconds: 900 } });
    expect(posted.status).toBe(200);
    const job = posted.body.address as string;
    let last = { status: 0, body: '' };
    await waitFor(async () => (last = await viaHost(gatewayUrl, `${job.toLowerCase()}.${NODE_DOMAIN}`)).status === 200, {
      timeoutMs: 90_000,
      intervalMs: 250,
      what: `job ${job} to answer through the gateway`,
    }).catch((err: Error) => {
      throw new Error(`${err.message}; last answer ${last.status} ${last.body.slice(0, 300)}\n${cp.lines.slice(-15).join('\n')}`);
    });
    return job;
  };

  /** Polls once a second for `seconds`, recording every answer that is not a 200. */
  const pollFor = async (host: string, seconds: number, failures: string[], phase: string) => {
    const until = Date.now() + seconds * 1000;
    while (Date.now() < until) {
      const started = Date.now();
      const res = await viaHost(gatewayUrl, host);
      if (res.status !== 200) failures.push(`${phase} +${Math.round((until - started) / 1000)}s: ${res.status} ${res.body.slice(0, 120)}`);
      await sleep(Math.max(0, 1000 - (Date.now() - started)));
    }
  };

  it(
    'keeps serving a running job while deployment-manager, then Redis, then Postgres are down',
    async () => {
      const job = await postRunningJob();
      const host = `${job.toLowerCase()}.${NODE_DOMAIN}`;
      const failures: string[] = [];

      await cp.killDeploymentManager();
      await pollFor(host, OUTAGE_SECONDS, failures, 'deployment-manager killed');
      await cp.startDeploymentManager();
      await pollFor(host, 3, failures, 'deployment-manager back');

      await stores.redis.stop();
      await pollFor(host, OUTAGE_SECONDS, failures, 'redis stopped');
      await stores.startRedis();
      await pollFor(host, 3, failures, 'redis back');

      await stores.pg.stop();
      await pollFor(host, OUTAGE_SECONDS, failures, 'postgres stopped');
      await stores.startPostgres();
      await pollFor(host, 3, failures, 'postgres back');

      expect(failures).toEqual([]);
    },
    (OUTAGE_SECONDS * 3 + 120) * 1000,
  );

  it('answers 404 for a stopped job within 2 s', async () => {
    // A route cache far longer than 2 s: only the route change published through Redis can take the job down in time.
    const slowCache = await cp.startGateway({ INGRESS_CACHE_MS: '60000' });
    const job = await postRunningJob();
    const host = `${job.toLowerCase()}.${NODE_DOMAIN}`;
    expect((await viaHost(slowCache.urls.gateway, host)).status).toBe(200);
    const stopped = await call(gatewayUrl, 'POST', `/jobs/${job}/stop`, { key: user.key });
    expect(stopped.status).toBe(200);
    const at = Date.now();
    await waitFor(async () => (await viaHost(slowCache.urls.gateway, host)).status === 404, { timeoutMs: 2000, intervalMs: 50, what: 'the stopped job to answer 404' });
    expect(Date.now() - at).toBeLessThan(2000);
  }, 120_000);

  it('looks up 200 random unknown hosts from one address a bounded number of times', async () => {
    const before = cp.routeLookups();
    const hosts = Array.from({ length: 200 }, (_, i) => `nosuch${i}x${Math.random().toString(36).slice(2, 10)}.${NODE_DOMAIN}`);
    const answers = await Promise.all(hosts.map((h) => viaHost(gatewayUrl, h)));
    // The same unknown host asked for again and again: answered from the negative cache.
    const repeated = await Promise.all(Array.from({ length: 50 }, () => viaHost(gatewayUrl, hosts[0])));
    const lookups = cp.routeLookups() - before;
    expect(lookups).toBeLessThanOrEqual(60); // INGRESS_LOOKUPS_PER_MINUTE
    expect(answers.filter((a) => a.status !== 404 && a.status !== 429)).toEqual([]);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(200 - 60);
    expect(repeated.every((a) => a.status === 404 || a.status === 429)).toBe(true);
  }, 60_000);
});
