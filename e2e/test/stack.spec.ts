import { createApiClient } from '@ocg/api-client';
import { freePort, launchServices, testDatabase, testRedis, type LaunchedStack } from '@ocg/testing';

const REQUIRED_SCOPES = ['api-keys:manage', 'wallet:sign', 'credits:read'];

describe('the stack behind the gateway', () => {
  let stack: LaunchedStack;
  let dropDb: () => Promise<void>;
  const lines: string[] = [];

  beforeAll(async () => {
    const db = await testDatabase();
    dropDb = db.drop;
    const redis = await testRedis();
    const ports: Record<string, number> = {};
    for (const name of ['gateway', 'client-manager', 'host-manager', 'deployment-manager']) ports[name] = await freePort();
    stack = await launchServices({ databaseUrl: db.url, redisUrl: redis.url, ports, logLevel: 'info', onLine: (line) => lines.push(line) });
  }, 120000);

  afterAll(async () => {
    await stack?.stop();
    await dropDb?.();
  });

  it('serves the full scope catalog through the gateway via the generated client', async () => {
    const client = createApiClient({ baseUrl: stack.urls.gateway });
    const { data, response } = await client.GET('/auth/scopes');
    expect(response.status).toBe(200);
    const names = data!.scopes.map((s) => s.scope);
    expect(names).toEqual(expect.arrayContaining(REQUIRED_SCOPES));
    for (const scope of data!.scopes) {
      expect(scope.description.length).toBeGreaterThan(10);
      expect(typeof scope.oauthGrantable).toBe('boolean');
    }
  });

  it('answers in text/plain and multipart/form-data through the gateway', async () => {
    const json = await ((await fetch(`${stack.urls.gateway}/auth/scopes`)).json() as Promise<any>);
    const text = await fetch(`${stack.urls.gateway}/auth/scopes`, { headers: { accept: 'text/plain' } });
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(JSON.parse(await text.text())).toEqual(json);
    const multi = await fetch(`${stack.urls.gateway}/auth/scopes`, { headers: { accept: 'multipart/form-data' } });
    expect(multi.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    const form = await multi.formData();
    expect(JSON.parse(String(form.get('scopes')))).toEqual(json.scopes);
  });

  it('passes the request id to the service and back', async () => {
    const res = await fetch(`${stack.urls.gateway}/auth/scopes`, { headers: { 'x-request-id': 'e2e-request-42' } });
    expect(res.headers.get('x-request-id')).toBe('e2e-request-42');
    await new Promise((r) => setTimeout(r, 200));
    expect(lines.some((line) => line.startsWith('client-manager') && line.includes('e2e-request-42'))).toBe(true);
  });

  it('reports every service ready', async () => {
    for (const url of Object.values(stack.urls)) {
      const res = await fetch(`${url}/readyz`);
      expect(res.status).toBe(200);
    }
  });

  it('answers 503 with the error shape when the service behind a path is down', async () => {
    await stack.processes.get('client-manager')!.stop();
    const res = await fetch(`${stack.urls.gateway}/auth/scopes`);
    expect(res.status).toBe(503);
    const body = await (res.json() as Promise<any>);
    expect(body).toMatchObject({ name: 'ServiceUnavailableError', code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
  });
});
