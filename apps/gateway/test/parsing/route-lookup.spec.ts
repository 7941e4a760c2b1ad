/** Where a job or node address leads, asked of deployment-manager's and host-manager's internal routes (real HTTP servers). */
import http from 'node:http';
import { listen, type RunningServer } from '@ocg/http';
import { lookUpRoute as lookUp, routeServices, type RouteLookupOptions } from '../../src/ingress/route-lookup';

const lookUpRoute = (address: string, opts: RouteLookupOptions) => lookUp(address, routeServices(opts));

const TOKEN = 'internal-token-for-route-lookup-tests';

interface Seen {
  url: string;
  token?: string;
  accept?: string;
}

/** One internal API: answers `routes[url]` (a status, or a 200 body), records what reached it; `/stall/...` never answers. */
function internalApi(routes: Map<string, unknown>, seen: Seen[]): http.RequestListener {
  return (req, res) => {
    seen.push({ url: req.url ?? '', token: req.headers['x-ocg-internal-token'] as string | undefined, accept: req.headers.accept });
    if (req.headers['x-ocg-internal-token'] !== TOKEN) return void res.writeHead(401).end();
    const answer = routes.get(req.url ?? '');
    if (answer === undefined) return void res.writeHead(404).end();
    if (typeof answer === 'number') return void res.writeHead(answer).end();
    if (answer === 'stall') return;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  };
}

describe('lookUpRoute', () => {
  const jobs = new Map<string, unknown>();
  const nodes = new Map<string, unknown>();
  const seenByDm: Seen[] = [];
  const seenByHm: Seen[] = [];
  let dm: RunningServer;
  let hm: RunningServer;
  let opts: RouteLookupOptions;

  beforeAll(async () => {
    dm = await listen(internalApi(jobs, seenByDm), { host: '127.0.0.1', port: 0 });
    hm = await listen(internalApi(nodes, seenByHm), { host: '127.0.0.1', port: 0 });
    opts = { deploymentManagerUrl: dm.url, hostManagerUrl: hm.url, internalToken: TOKEN, timeoutMs: 2000 };
  });

  afterAll(async () => Promise.all([dm.close(), hm.close()]));

  beforeEach(() => {
    jobs.clear();
    nodes.clear();
    seenByDm.length = 0;
    seenByHm.length = 0;
  });

  it("sends a running job to its node's ingress, asking each service with the token for JSON", async () => {
    jobs.set('/internal/jobs/j1', { job: 'J1', status: 'RUNNING', node: 'N1' });
    nodes.set('/internal/nodes/N1', { address: 'N1', ingressUrl: 'http://10.0.0.1:7000', status: 'ONLINE' });
    await expect(lookUpRoute('j1', opts)).resolves.toEqual({ kind: 'job', job: 'J1', ingressUrl: 'http://10.0.0.1:7000', forwards: {} });
    expect(seenByDm).toEqual([{ url: '/internal/jobs/j1', token: TOKEN, accept: 'application/json' }]);
    expect(seenByHm).toEqual([{ url: '/internal/nodes/N1', token: TOKEN, accept: 'application/json' }]);
  });

  it("carries a running job's forwards, as deployment-manager states them", async () => {
    const forwards = { j1: '203.0.113.7:31001', 'j1-8080': '203.0.113.7:31001', 'j1-9090': '203.0.113.7:31002' };
    jobs.set('/internal/jobs/j1', { job: 'J1', status: 'RUNNING', node: 'N1', forwards });
    nodes.set('/internal/nodes/N1', { address: 'N1', ingressUrl: 'http://10.0.0.1:7000', status: 'ONLINE' });
    await expect(lookUpRoute('j1', opts)).resolves.toEqual({ kind: 'job', job: 'J1', ingressUrl: 'http://10.0.0.1:7000', forwards });
  });

  it('says a job that is not running, or has no node, is not ready, and asks host-manager nothing', async () => {
    jobs.set('/internal/jobs/j1', { job: 'J1', status: 'QUEUED', node: null });
    await expect(lookUpRoute('j1', opts)).resolves.toEqual({ kind: 'not-ready', job: 'J1', status: 'QUEUED' });
    jobs.set('/internal/jobs/j1', { job: 'J1', status: 'STOPPED', node: 'N1' });
    await expect(lookUpRoute('j1', opts)).resolves.toEqual({ kind: 'not-ready', job: 'J1', status: 'STOPPED' });
    jobs.set('/internal/jobs/j1', { job: 'J1', status: 'RUNNING', node: null });
    await expect(lookUpRoute('j1', opts)).resolves.toEqual({ kind: 'not-ready', job: 'J1', status: 'RUNNING' });
    expect(seenByHm).toEqual([]);
  });

  it('says a running job whose node host-manager does not know is not ready', async () => {
    jobs.set('/internal/jobs/j1', { job: 'J1', status: 'RUNNING', node: 'N1' });
    await expect(lookUpRoute('j1', opts)).resolves.toEqual({ kind: 'not-ready', job: 'J1', status: 'NODE_UNKNOWN' });
  });

  it('sends an address that is no job to the node of that address, if it is online', async () => {
    nodes.set('/internal/nodes/n1', { address: 'N1', ingressUrl: 'https://node.example:7443', status: 'ONLINE' });
    await expect(lookUpRoute('n1', opts)).resolves.toEqual({ kind: 'node', node: 'N1', ingressUrl: 'https://node.example:7443' });
    nodes.set('/internal/nodes/n1', { address: 'N1', ingressUrl: 'https://node.example:7443' });
    await expect(lookUpRoute('n1', opts)).resolves.toEqual({ kind: 'node', node: 'N1', ingressUrl: 'https://node.example:7443' });
    nodes.set('/internal/nodes/n1', { address: 'N1', ingressUrl: 'https://node.example:7443', status: 'OFFLINE' });
    await expect(lookUpRoute('n1', opts)).resolves.toEqual({ kind: 'node-offline', node: 'N1' });
  });

  it('knows nothing of an address neither service knows', async () => {
    await expect(lookUpRoute('nobody', opts)).resolves.toEqual({ kind: 'unknown' });
    expect([seenByDm.map((s) => s.url), seenByHm.map((s) => s.url)]).toEqual([['/internal/jobs/nobody'], ['/internal/nodes/nobody']]);
  });

  it('escapes the address and the node in the paths it asks', async () => {
    jobs.set('/internal/jobs/a%2Fb%3Fc', { job: 'a/b?c', status: 'RUNNING', node: 'n/1' });
    nodes.set('/internal/nodes/n%2F1', { address: 'n/1', ingressUrl: 'http://10.0.0.2:7000' });
    await expect(lookUpRoute('a/b?c', opts)).resolves.toEqual({ kind: 'job', job: 'a/b?c', ingressUrl: 'http://10.0.0.2:7000', forwards: {} });
    await expect(lookUpRoute('x/y', opts)).resolves.toEqual({ kind: 'unknown' });
    expect(seenByHm.map((s) => s.url)).toEqual(['/internal/nodes/n%2F1', '/internal/nodes/x%2Fy']);
  });

  it('fails, naming the service but not the path, when a service answers anything but 200 or 404', async () => {
    jobs.set('/internal/jobs/j1', 500);
    await expect(lookUpRoute('j1', opts)).rejects.toThrow(new Error('deployment-manager answered 500'));
    jobs.set('/internal/jobs/j1', { job: 'J1', status: 'RUNNING', node: 'N1' });
    nodes.set('/internal/nodes/N1', 503);
    await expect(lookUpRoute('j1', opts)).rejects.toThrow(new Error('host-manager answered 503'));
    await expect(lookUpRoute('j1', { ...opts, internalToken: 'wrong' })).rejects.toThrow(new Error('deployment-manager answered 401'));
  });

  it('gives up on a service that does not answer within timeoutMs', async () => {
    jobs.set('/internal/jobs/j1', 'stall');
    const started = Date.now();
    await expect(lookUpRoute('j1', { ...opts, timeoutMs: 200 })).rejects.toThrow(/deployment-manager is unavailable/);
    expect(Date.now() - started).toBeLessThan(1900);
  });
});
