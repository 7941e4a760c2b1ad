import { setTimeout as sleep } from 'node:timers/promises';
import { signNodeRequest } from '@ocg/auth';
import { redisKeys } from '@ocg/redis';
import { cpuSpecs, gpuSpecs, INTERNAL_TOKEN, startHostManager, TestNode, type Harness } from './harness';

describe('nodes', () => {
  let hm: Harness;
  let reader: string;
  let cpu: { address: string; joinToken: string; name: string };
  let gpu: { address: string; joinToken: string; name: string };

  beforeAll(async () => {
    // A one-second presence, so expiry can be watched; lastSeenAt written at most every 60 s.
    hm = await startHostManager({ NODE_PRESENCE_TTL_SECONDS: 1, NODE_LAST_SEEN_WRITE_SECONDS: 60 });
    reader = (await hm.keyWith(['markets:read'])).key;
    cpu = await hm.createMarket({ name: 'CPU pool' });
    gpu = await hm.createMarket({ name: 'RTX 3090', gpuRequired: true });
  });
  afterAll(() => hm.close());

  describe('POST /nodes/register', () => {
    it('registers a node signed by its key with the market join token, online at once', async () => {
      const node = new TestNode(hm);
      const res = await node.register('cpu pool', cpu.joinToken);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        node: {
          address: node.address,
          market: cpu.address,
          marketName: 'CPU pool',
          status: 'ONLINE',
          specs: cpuSpecs,
          domain: 'node.example.net',
          ingressUrl: 'http://10.0.0.5:8091',
        },
        presenceTtlSeconds: 1,
        heartbeatIntervalSeconds: 1,
      });
      expect(Math.abs(Date.parse(res.body.node.lastSeenAt) - Date.parse(res.body.node.registeredAt))).toBeLessThan(1000);
    });

    it('answers 403 for a wrong join token and registers nothing', async () => {
      const node = new TestNode(hm);
      const res = await node.register(cpu.address, gpu.joinToken);
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/join token/);
      expect((await hm.call('GET', `/nodes/${node.address}`, { key: reader })).status).toBe(404);
    });

    it('stops accepting a join token once it is rotated', async () => {
      const market = await hm.createMarket();
      const { body } = await hm.call('POST', `/markets/${market.address}/rotate-join-token`);
      expect((await new TestNode(hm).register(market.address, market.joinToken)).status).toBe(403);
      expect((await new TestNode(hm).register(market.address, body.joinToken)).status).toBe(200);
    });

    it('answers 404 for an unknown market', async () => {
      expect((await new TestNode(hm).register('no such market', cpu.joinToken)).status).toBe(404);
    });

    it('refuses a node without GPUs in a GPU market, and takes one with a GPU', async () => {
      const res = await new TestNode(hm).register(gpu.address, gpu.joinToken, cpuSpecs);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: '/specs/gpus', message: 'market "RTX 3090" requires GPUs: report at least one' }]);
      expect((await new TestNode(hm).register(gpu.address, gpu.joinToken, gpuSpecs)).status).toBe(200);
    });

    it('moves a registered node to the market it registers with next, keeping registeredAt', async () => {
      const node = new TestNode(hm);
      const first = await node.register(cpu.address, cpu.joinToken);
      const again = await node.register(gpu.address, gpu.joinToken, gpuSpecs, { domain: 'other.example.net' });
      expect(again.body.node).toMatchObject({ market: gpu.address, specs: gpuSpecs, domain: 'other.example.net', registeredAt: first.body.node.registeredAt });
    });

    it('answers 401 to an unsigned request', async () => {
      const body = { market: cpu.address, joinToken: cpu.joinToken, specs: cpuSpecs, domain: 'n.example.net', ingressUrl: 'http://n:1' };
      const res = await hm.call('POST', '/nodes/register', { key: null, body });
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/x-ocg-node/);
    });

    it('answers 401 when another key signed the request', async () => {
      const node = new TestNode(hm);
      const impostor = new TestNode(hm);
      const res = await node.send(
        '/nodes/register',
        { market: cpu.address, joinToken: cpu.joinToken, specs: cpuSpecs, domain: 'n.example.net', ingressUrl: 'http://n:1' },
        { signer: impostor.signer },
      );
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/does not verify/);
    });

    it('answers 401 when the body differs from what was signed', async () => {
      const body = { market: cpu.address, joinToken: cpu.joinToken, specs: cpuSpecs, domain: 'n.example.net', ingressUrl: 'http://n:1' };
      const res = await new TestNode(hm).send('/nodes/register', body, { signedBody: { ...body, domain: 'evil.example.net' } });
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/another method, path or body/);
    });

    it('answers 401 to an expired signature', async () => {
      const body = { market: cpu.address, joinToken: cpu.joinToken, specs: cpuSpecs, domain: 'n.example.net', ingressUrl: 'http://n:1' };
      const res = await new TestNode(hm).send('/nodes/register', body, { now: Date.now() - 301_000 });
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/expired/);
    });

    it('answers 400 naming bad specs, domain and ingress URL', async () => {
      const res = await new TestNode(hm).register(cpu.address, cpu.joinToken, { cpus: 0, memoryBytes: 1, gpus: [] }, { domain: 'bad domain', ingressUrl: 'ftp://x' });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/domain', '/ingressUrl', '/specs/cpus']);
    });
  });

  describe('GET /internal/nodes/{node}', () => {
    it('finds a node by its address in lowercase, for the gateway, with the internal token only', async () => {
      const node = new TestNode(hm);
      await node.register(cpu.address, cpu.joinToken);
      const headers = { 'x-ocg-internal-token': INTERNAL_TOKEN };
      const res = await hm.call('GET', `/internal/nodes/${node.address.toLowerCase()}`, { key: null, headers });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ address: node.address, ingressUrl: 'http://10.0.0.5:8091' });
      expect((await hm.call('GET', `/internal/nodes/${node.address}`, { key: reader })).status).toBe(401);
      expect((await hm.call('GET', '/internal/nodes/nosuchnode', { key: null, headers })).status).toBe(404);
    });
  });

  describe('GET /internal/markets/{market}/nodes', () => {
    it("lists a market's nodes by its name with status and specs, and never where they are reached", async () => {
      const market = await hm.createMarket({ name: 'Page pool' });
      const node = new TestNode(hm);
      await node.register(market.address, market.joinToken);
      const headers = { 'x-ocg-internal-token': INTERNAL_TOKEN };
      const res = await hm.call('GET', '/internal/markets/page%20pool/nodes', { key: null, headers });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ nodes: [{ address: node.address, status: 'ONLINE', specs: cpuSpecs, lastSeenAt: expect.any(String) }], total: 1 });
    });

    it('answers 404 for an unknown market and 401 without the internal token', async () => {
      const headers = { 'x-ocg-internal-token': INTERNAL_TOKEN };
      expect((await hm.call('GET', '/internal/markets/no%20such%20market/nodes', { key: null, headers })).status).toBe(404);
      expect((await hm.call('GET', `/internal/markets/${cpu.address}/nodes`, { key: reader })).status).toBe(401);
    });
  });

  describe('POST /nodes/heartbeat', () => {
    it('keeps a node online while heartbeats arrive and turns it offline when its presence expires', async () => {
      const node = new TestNode(hm);
      await node.register(cpu.address, cpu.joinToken);
      for (let i = 0; i < 3; i++) {
        await sleep(500);
        expect((await node.heartbeat()).body).toMatchObject({ address: node.address, status: 'ONLINE' });
        expect((await hm.call('GET', `/nodes/${node.address}`, { key: reader })).body.status).toBe('ONLINE');
      }
      await sleep(1300);
      const after = await hm.call('GET', `/nodes/${node.address}`, { key: reader });
      expect(after.body.status).toBe('OFFLINE');
      expect(after.body.lastSeenAt).not.toBeNull();
    });

    it('writes lastSeenAt at most once per interval', async () => {
      const node = new TestNode(hm);
      const registered = await node.register(cpu.address, cpu.joinToken);
      await sleep(20);
      await node.heartbeat();
      expect((await hm.call('GET', `/nodes/${node.address}`, { key: reader })).body.lastSeenAt).toBe(registered.body.node.lastSeenAt);
      await hm.redis.del(redisKeys.nodePresence(node.address)); // as if the interval had passed
      await node.heartbeat();
      expect(Date.parse((await hm.call('GET', `/nodes/${node.address}`, { key: reader })).body.lastSeenAt)).toBeGreaterThan(Date.parse(registered.body.node.lastSeenAt));
    });

    it("carries the market's warm resources at registration, and in a heartbeat only when the node's version is not the current one", async () => {
      const market = await hm.createMarket();
      const warm = [{ type: 'Ollama', model: 'tiny:1b' }];
      await hm.call('POST', `/markets/${market.address}/update`, { body: { warmResources: warm } });
      const node = new TestNode(hm);
      const registered = await node.register(market.address, market.joinToken);
      expect(registered.body.warmResources).toEqual(warm);
      const version = registered.body.warmResourcesVersion;
      const same = await node.heartbeat({ warmResourcesVersion: version });
      expect(same.body.warmResourcesVersion).toBe(version);
      expect(same.body).not.toHaveProperty('warmResources');
      expect((await node.heartbeat()).body.warmResources).toEqual(warm);
      await hm.call('POST', `/markets/${market.address}/update`, { body: { warmResources: [] } });
      const changed = await node.heartbeat({ warmResourcesVersion: version });
      expect(changed.body.warmResources).toEqual([]);
      expect(changed.body.warmResourcesVersion).not.toBe(version);
    });

    it('updates the specs a heartbeat reports, still refusing a GPU market node without GPUs', async () => {
      const node = new TestNode(hm);
      await node.register(gpu.address, gpu.joinToken, gpuSpecs);
      const twoGpus = { ...gpuSpecs, gpus: [...gpuSpecs.gpus, ...gpuSpecs.gpus] };
      expect((await node.heartbeat({ specs: twoGpus })).status).toBe(200);
      expect((await hm.call('GET', `/nodes/${node.address}`, { key: reader })).body.specs).toEqual(twoGpus);
      expect((await node.heartbeat({ specs: cpuSpecs })).status).toBe(400);
    });

    it('answers 404 for a node that never registered', async () => {
      const res = await new TestNode(hm).heartbeat();
      expect(res.status).toBe(404);
      expect(res.body.message).toMatch(/register/);
    });

    it('answers 401 to a heartbeat signed for another path', async () => {
      const node = new TestNode(hm);
      await node.register(cpu.address, cpu.joinToken);
      expect((await node.heartbeat()).status).toBe(200);
      const headers = signNodeRequest(node.signer, { method: 'POST', path: '/nodes/register', body: {} });
      expect((await hm.call('POST', '/nodes/heartbeat', { key: null, body: {}, headers })).status).toBe(401);
    });
  });

  describe('GET /nodes', () => {
    it('lists the nodes of a market by name, with status and total', async () => {
      const market = await hm.createMarket({ name: 'Listing' });
      const nodes = [new TestNode(hm), new TestNode(hm), new TestNode(hm)];
      for (const n of nodes) await n.register(market.address, market.joinToken);
      const page = await hm.call('GET', '/nodes?market=listing&limit=2', { key: reader });
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(3);
      expect(page.body.nodes.map((n: { address: string }) => n.address)).toHaveLength(2);
      const rest = await hm.call('GET', '/nodes?market=listing&limit=2&offset=2', { key: reader });
      expect([...page.body.nodes, ...rest.body.nodes].map((n: { address: string }) => n.address).sort()).toEqual(nodes.map((n) => n.address).sort());
      expect(rest.body.nodes[0]).toMatchObject({ market: market.address, marketName: 'Listing', status: 'ONLINE' });
    });

    it('answers 401 without a credential and 403 without markets:read', async () => {
      expect((await hm.call('GET', '/nodes', { key: null })).status).toBe(401);
      const { key } = await hm.keyWith(['credits:read']);
      expect((await hm.call('GET', '/nodes', { key })).status).toBe(403);
    });
  });
});
