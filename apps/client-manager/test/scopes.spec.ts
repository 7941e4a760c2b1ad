import { SCOPE_CATALOG } from '@ocg/contracts';
import { startClientManager, type Harness } from './harness';

describe('GET /auth/scopes', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager()));
  afterAll(() => cm.close());

  it('returns the whole catalog with descriptions and oauthGrantable', async () => {
    const res = await fetch(`${cm.url}/auth/scopes`);
    expect(res.status).toBe(200);
    const body = await (res.json() as Promise<any>);
    expect(body).toEqual({ scopes: SCOPE_CATALOG });
    expect(body.scopes.map((s: { scope: string }) => s.scope)).toEqual(expect.arrayContaining(['api-keys:manage', 'wallet:sign', 'credits:read']));
  });

  it('marks operator scopes as not grantable to OAuth apps', async () => {
    const { scopes } = await ((await fetch(`${cm.url}/auth/scopes`)).json() as Promise<any>);
    const benchmarks = scopes.find((s: { scope: string }) => s.scope === 'benchmarks:manage');
    expect(benchmarks.oauthGrantable).toBe(false);
  });

  it('answers text/plain with the JSON text', async () => {
    const res = await fetch(`${cm.url}/auth/scopes`, { headers: { accept: 'text/plain' } });
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(JSON.parse(await res.text())).toEqual({ scopes: SCOPE_CATALOG });
  });

  it('answers multipart/form-data with one part per member', async () => {
    const res = await fetch(`${cm.url}/auth/scopes`, { headers: { accept: 'multipart/form-data' } });
    const form = await res.formData();
    expect([...form.keys()]).toEqual(['scopes']);
    expect(JSON.parse(String(form.get('scopes')))).toEqual(SCOPE_CATALOG);
  });
});
