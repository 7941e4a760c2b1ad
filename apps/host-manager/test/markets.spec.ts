import { isAddress } from '@ocg/auth';
import { DEFAULT_JOB_LIMITS } from '@ocg/contracts';
import { INTERNAL_TOKEN, startHostManager, type Harness } from './harness';

describe('markets', () => {
  let hm: Harness;
  let reader: string;
  beforeAll(async () => {
    hm = await startHostManager();
    reader = (await hm.keyWith(['markets:read'])).key;
  });
  afterAll(() => hm.close());

  describe('POST /markets', () => {
    it('creates a market with a base58 address, the defaults and a join token shown once', async () => {
      const res = await hm.call('POST', '/markets', { body: { name: 'RTX 4090', pricePerSecond: 250, gpuRequired: true } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'RTX 4090', pricePerSecond: 250, gpuRequired: true, defaultDurationSeconds: 7200, maxDurationSeconds: 86400 });
      expect(isAddress(res.body.address)).toBe(true);
      expect(res.body.joinToken).toMatch(/^mjt_[1-9A-HJ-NP-Za-km-z]{40,44}$/);
      const read = await hm.call('GET', `/markets/${res.body.address}`, { key: reader });
      expect(read.body).not.toHaveProperty('joinToken');
    });

    it('answers 409 for a name taken in another case', async () => {
      await hm.createMarket({ name: 'A100' });
      const res = await hm.call('POST', '/markets', { body: { name: 'a100', pricePerSecond: 1 } });
      expect(res.status).toBe(409);
      expect(res.body.errors).toEqual([{ path: '/name', message: 'is taken' }]);
    });

    it('answers 400 naming each bad field', async () => {
      const res = await hm.call('POST', '/markets', { body: { name: ' bad ', pricePerSecond: 1.5, defaultDurationSeconds: 10 } });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/defaultDurationSeconds', '/name', '/pricePerSecond']);
    });

    it('refuses a default duration above the maximum', async () => {
      const res = await hm.call('POST', '/markets', { body: { name: 'Long', pricePerSecond: 1, defaultDurationSeconds: 7200, maxDurationSeconds: 3600 } });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: '/defaultDurationSeconds', message: 'must not exceed maxDurationSeconds (3600)' }]);
    });

    it('refuses a name that reads as a market address', async () => {
      const { address } = await hm.createMarket();
      const res = await hm.call('POST', '/markets', { body: { name: address, pricePerSecond: 1 } });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('/name');
    });

    it('answers 401 without a credential and 403 for a key without markets:manage', async () => {
      expect((await hm.call('POST', '/markets', { key: null, body: { name: 'X', pricePerSecond: 1 } })).status).toBe(401);
      const res = await hm.call('POST', '/markets', { key: reader, body: { name: 'X', pricePerSecond: 1 } });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ name: 'ForbiddenError', code: 'FORBIDDEN' });
    });
  });

  describe('GET /markets/{market}', () => {
    it('resolves a market by address and by name in any case', async () => {
      const market = await hm.createMarket({ name: 'H100 SXM' });
      for (const ref of [market.address, 'H100 SXM', 'h100 sxm', 'H100 sxm']) {
        const res = await hm.call('GET', `/markets/${encodeURIComponent(ref)}`, { key: reader });
        expect(res.status).toBe(200);
        expect(res.body.address).toBe(market.address);
      }
    });

    it('answers 404 for an unknown name or address', async () => {
      expect((await hm.call('GET', '/markets/nothing-here', { key: reader })).status).toBe(404);
      expect((await hm.call('GET', '/markets/11111111111111111111111111111111', { key: reader })).status).toBe(404);
    });

    it('answers 401 for a key client-manager does not know', async () => {
      const res = await hm.call('GET', '/markets', { key: 'ocg_' + 'x'.repeat(50) });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    });
  });

  it('lists markets by name for a reader', async () => {
    const res = await hm.call('GET', '/markets', { key: reader });
    expect(res.status).toBe(200);
    const names = res.body.markets.map((m: { name: string }) => m.name);
    expect(names).toEqual([...names].sort());
    expect(res.body.total).toBe(names.length);
  });

  it('updates the members given and keeps the rest', async () => {
    const market = await hm.createMarket({ name: 'L4', pricePerSecond: 10 });
    const res = await hm.call('POST', `/markets/l4/update`, { body: { pricePerSecond: 12, maxDurationSeconds: 14400 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ address: market.address, name: 'L4', pricePerSecond: 12, maxDurationSeconds: 14400, defaultDurationSeconds: 7200 });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(market.updatedAt));
    expect((await hm.call('POST', `/markets/${market.address}/update`, { key: reader, body: { pricePerSecond: 1 } })).status).toBe(403);
  });

  describe('job limits and container policy', () => {
    it('gives a new market the default limits and policy, and takes the ones an admin sets', async () => {
      const made = await hm.call('POST', '/markets', { body: { name: 'Limited', pricePerSecond: 1, jobLimits: { maxOps: 8, memoryBytesPerContainer: 2 ** 32 } } });
      expect(made.status).toBe(200);
      expect(made.body.jobLimits).toEqual({ ...DEFAULT_JOB_LIMITS, maxOps: 8, memoryBytesPerContainer: 2 ** 32 });
      expect(made.body.containerPolicy).toEqual({ user: null, readOnlyRootFilesystem: false });

      const updated = await hm.call('POST', `/markets/${made.body.address}/update`, {
        body: {
          jobLimits: { pidsPerContainer: 100, volumeBytesPerJob: 10 * 1024 ** 3, resourceBytesPerJob: 20 * 1024 ** 3 },
          containerPolicy: { user: '1000:1000', readOnlyRootFilesystem: true },
        },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.jobLimits).toEqual({
        ...DEFAULT_JOB_LIMITS,
        maxOps: 8,
        memoryBytesPerContainer: 2 ** 32,
        pidsPerContainer: 100,
        volumeBytesPerJob: 10 * 1024 ** 3,
        resourceBytesPerJob: 20 * 1024 ** 3,
      });
      expect(updated.body.containerPolicy).toEqual({ user: '1000:1000', readOnlyRootFilesystem: true });
      expect((await hm.call('GET', `/markets/${made.body.address}`, { key: reader })).body.jobLimits).toMatchObject({ pidsPerContainer: 100, volumeBytesPerJob: 10 * 1024 ** 3 });
    });

    it('refuses a per-container limit above its per-job sum, a bad user and an op limit beyond what a node reports', async () => {
      const market = await hm.createMarket({ name: 'Strict' });
      const over = await hm.call('POST', `/markets/${market.address}/update`, { body: { jobLimits: { cpusPerJob: 2 } } });
      expect(over.status).toBe(400);
      expect(over.body.errors).toEqual([{ path: '/jobLimits/cpusPerContainer', message: 'must not exceed jobLimits.cpusPerJob (2)' }]);
      const bad = await hm.call('POST', `/markets/${market.address}/update`, {
        body: { containerPolicy: { user: 'root' }, jobLimits: { maxOps: 5000, volumeBytesPerJob: 1000, bytesPerResource: 1000 } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        '/containerPolicy/user',
        '/jobLimits/bytesPerResource',
        '/jobLimits/maxOps',
        '/jobLimits/volumeBytesPerJob',
      ]);
    });

    describe('warmResources', () => {
      const hf = { type: 'HF', repo: 'org/model', target: '/models/m', files: ['config.json'] };
      const s3 = { type: 'S3', url: 'https://s3.example.net/weights', bucket: 'base', target: '/w' };

      it('replaces the list of resources the market keeps warm, shown by GET, and empties it', async () => {
        const market = await hm.createMarket({ name: 'Warm' });
        expect(market.warmResources).toEqual([]);
        const set = await hm.call('POST', `/markets/${market.address}/update`, { body: { warmResources: [hf, s3, { type: 'Ollama', model: 'tiny:1b' }] } });
        expect(set.status).toBe(200);
        expect(set.body.warmResources).toEqual([hf, s3, { type: 'Ollama', model: 'tiny:1b' }]);
        expect((await hm.call('POST', `/markets/${market.address}/update`, { body: { pricePerSecond: 2 } })).body.warmResources).toHaveLength(3);
        expect((await hm.call('GET', `/markets/${market.address}`, { key: reader })).body.warmResources).toEqual([hf, s3, { type: 'Ollama', model: 'tiny:1b' }]);
        expect((await hm.call('POST', `/markets/${market.address}/update`, { body: { warmResources: [] } })).body.warmResources).toEqual([]);
      });

      it('refuses an item the definition schema refuses, credentials, allowWrite and more than 32 items, naming each item', async () => {
        const market = await hm.createMarket({ name: 'Warm refusals' });
        const bad = await hm.call('POST', `/markets/${market.address}/update`, {
          body: {
            warmResources: [
              hf,
              { type: 'HF', target: '/m' },
              { ...s3, IAM: { REGION: 'r', ACCESS_KEY_ID: 'id', SECRET_ACCESS_KEY: 'secret' } },
              { ...hf, accessToken: 'hf_secret', allowWrite: true },
            ],
          },
        });
        expect(bad.status).toBe(400);
        const paths = bad.body.errors.map((e: { path: string }) => e.path);
        expect(paths).toEqual(expect.arrayContaining(['/warmResources/1', '/warmResources/2/IAM', '/warmResources/3/accessToken', '/warmResources/3/allowWrite']));
        expect(paths.every((p: string) => /^\/warmResources\/[123]\b/.test(p))).toBe(true);
        expect(JSON.stringify(bad.body)).not.toMatch(/hf_secret|"secret"/);
        const many = await hm.call('POST', `/markets/${market.address}/update`, { body: { warmResources: Array.from({ length: 33 }, () => hf) } });
        expect(many.status).toBe(400);
        expect(many.body.errors.map((e: { path: string }) => e.path)).toContain('/warmResources');
        expect((await hm.call('GET', `/markets/${market.address}`, { key: reader })).body.warmResources).toEqual([]);
      });
    });

    it('is changed by markets:manage only', async () => {
      const market = await hm.createMarket({ name: 'Guarded' });
      const res = await hm.call('POST', `/markets/${market.address}/update`, { key: reader, body: { jobLimits: { maxOps: 1000 } } });
      expect(res.status).toBe(403);
    });
  });

  it('rejects an API key at once after client-manager disables it', async () => {
    const { key, id } = await hm.keyWith(['markets:read']);
    expect((await hm.call('GET', '/markets', { key })).status).toBe(200);
    const disabled = await fetch(`${hm.clientManagerUrl}/api-keys/${id}/update`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hm.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'disabled' }),
    });
    expect(disabled.status).toBe(200);
    let status = 200;
    for (let i = 0; i < 20 && status === 200; i++) {
      status = (await hm.call('GET', '/markets', { key })).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(401);
  });

  describe('internal market resolution', () => {
    it('resolves a market for a service holding the internal token', async () => {
      const market = await hm.createMarket({ name: 'Internal Test' });
      const res = await hm.call('GET', '/internal/markets/internal%20test', { key: null, headers: { 'x-ocg-internal-token': INTERNAL_TOKEN } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ address: market.address, pricePerSecond: 100, defaultDurationSeconds: 7200 });
    });

    it('answers 401 to an API key or a wrong token', async () => {
      expect((await hm.call('GET', '/internal/markets/anything')).status).toBe(401);
      expect((await hm.call('GET', '/internal/markets/anything', { key: null, headers: { 'x-ocg-internal-token': 'wrong' } })).status).toBe(401);
    });
  });

  describe('join tokens', () => {
    it('rotates the token for nodes:manage and refuses a reader', async () => {
      const market = await hm.createMarket();
      const res = await hm.call('POST', `/markets/${market.address}/rotate-join-token`);
      expect(res.status).toBe(200);
      expect(res.body.address).toBe(market.address);
      expect(res.body.joinToken).not.toBe(market.joinToken);
      expect((await hm.call('POST', `/markets/${market.address}/rotate-join-token`, { key: reader })).status).toBe(403);
    });
  });
});
