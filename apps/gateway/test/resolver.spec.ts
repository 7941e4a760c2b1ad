/**
 * The route cache against deployment-manager's and host-manager's internal
 * routes (a real HTTP server that can hold its answers): route changes that
 * arrive through Redis while a lookup is under way, and routes forgotten
 * after a failed forward.
 */
import http from 'node:http';
import { listen, type RunningServer } from '@ocg/http';
import { waitFor } from '@ocg/testing';
import { IngressResolver } from '../src/ingress/resolver';

const TOKEN = 'internal-token-for-resolver-tests';

describe('IngressResolver', () => {
  let route: { job: string; status: string; node: string; forwards: Record<string, string> };
  /** Job answers held while `hold` is set: each is what the route was when its lookup asked. */
  const held: Array<() => void> = [];
  let hold = false;
  let failing = false;
  let lookups = 0;
  let cp: RunningServer;
  let resolver: IngressResolver;

  const controlPlane: http.RequestListener = (req, res) => {
    if (req.headers['x-ocg-internal-token'] !== TOKEN) return void res.writeHead(401).end();
    if (failing) return void res.writeHead(500).end();
    if (req.url === '/internal/nodes/N1')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ address: 'N1', ingressUrl: 'http://203.0.113.1:7000' }));
    if (req.url !== '/internal/jobs/j1') return void res.writeHead(404).end();
    lookups++;
    const body = JSON.stringify(route);
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (hold) held.push(answer);
    else answer();
  };

  beforeAll(async () => {
    cp = await listen(controlPlane, { host: '127.0.0.1', port: 0 });
  });

  afterAll(() => cp.close());

  beforeEach(() => {
    route = { job: 'J1', status: 'RUNNING', node: 'N1', forwards: { j1: '203.0.113.1:31001' } };
    hold = false;
    failing = false;
    lookups = 0;
    // A route cache far longer than any test: only a change, or a forgotten route, makes a lookup.
    resolver = new IngressResolver({ deploymentManagerUrl: cp.url, hostManagerUrl: cp.url, internalToken: TOKEN, cacheMs: 60_000, negativeMs: 0 });
  });

  /** Starts a lookup of j1 whose answer is held, then lets `during` happen before the answer comes. */
  const lookUpWhile = async (during: () => void) => {
    hold = true;
    const answer = resolver.resolve('j1');
    await waitFor(() => held.length === 1, { timeoutMs: 5000, intervalMs: 5, what: 'the lookup to reach deployment-manager' });
    during();
    hold = false;
    held.shift()!();
    return answer;
  };

  it('serves the forwards a change published during a lookup, not the older answer the lookup brings', async () => {
    const answer = await lookUpWhile(() => {
      route = { ...route, forwards: { j1: '203.0.113.1:31002' } };
      resolver.apply({ job: 'J1', status: 'RUNNING' });
    });
    expect(answer).toMatchObject({ kind: 'job', forwards: { j1: '203.0.113.1:31002' } });
    expect(resolver.fresh('j1')).toMatchObject({ kind: 'job', forwards: { j1: '203.0.113.1:31002' } });
    expect(lookups).toBe(2);
  });

  it('keeps a stop published during a lookup', async () => {
    const answer = await lookUpWhile(() => resolver.apply({ job: 'J1', status: 'STOPPED' }));
    expect(answer).toEqual({ kind: 'not-ready', job: 'J1', status: 'STOPPED' });
    expect(resolver.fresh('j1')).toEqual({ kind: 'not-ready', job: 'J1', status: 'STOPPED' });
    expect(lookups).toBe(1);
  });

  it('looks a forgotten route up again, and serves it still while the control plane cannot answer', async () => {
    await resolver.resolve('j1');
    expect(resolver.fresh('j1')).toMatchObject({ kind: 'job' });
    resolver.forget('J1');
    expect(resolver.fresh('j1')).toBeUndefined();
    route = { ...route, forwards: {} };
    expect(await resolver.resolve('j1')).toMatchObject({ kind: 'job', forwards: {} });
    expect(lookups).toBe(2);
    resolver.forget('j1');
    failing = true;
    expect(await resolver.resolve('j1')).toMatchObject({ kind: 'job', forwards: {} });
  });
});
