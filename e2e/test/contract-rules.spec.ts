/**
 * The server enforces exactly what the description says, and no input gives a
 * 500 (issue 21 items 4-5, issue 11 item 9): the cases the issues measured,
 * through the gateway against the real services.
 */
import { request as httpRequest } from 'node:http';
import { openApiDocument } from '@ocg/api-spec';
import { startContractStack, type ContractStack } from './support/contract-stack';

interface Reply {
  status: number;
  body: any;
  text: string;
}

describe('the description is the contract', () => {
  let s: ContractStack;
  beforeAll(async () => {
    s = await startContractStack();
  }, 120_000);
  afterAll(() => s?.stop());

  async function send(method: string, path: string, body?: unknown, credential: 'admin' | 'node' | 'none' = 'admin', rawBody?: string): Promise<Reply> {
    const text = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    const headers: Record<string, string> = text === undefined ? {} : { 'content-type': 'application/json' };
    if (credential === 'admin') headers.authorization = `Bearer ${s.adminKey}`;
    if (credential === 'node') Object.assign(headers, s.nodeHeaders(method, path, rawBody === undefined ? body : JSON.parse(rawBody)));
    const res = await fetch(`${s.gateway}${path}`, { method, headers, body: text });
    const answer = await res.text();
    return { status: res.status, body: answer ? JSON.parse(answer) : undefined, text: answer };
  }

  const paths = (r: Reply): string[] => (r.body.errors ?? []).map((e: { path: string }) => e.path);

  describe('a string where a number is required is a 400, not coerced', () => {
    it('to extend a job ({"seconds":"12"})', async () => {
      const r = await send('POST', '/jobs/4Fz9xq1TNvfbGp5yEjL7uKcWdRb2hS3aM6nVtYk8PJDw/extend', { seconds: '12' });
      expect(r.status).toBe(400);
      expect(paths(r)).toEqual(['/seconds']);
    });

    it('to claim ({"waitSeconds":"12"})', async () => {
      const r = await send('POST', '/node-jobs/claim', { market: s.market.address, waitSeconds: '12' }, 'node');
      expect(r.status).toBe(400);
      expect(paths(r)).toEqual(['/waitSeconds']);
    });

    it('to sync ({"running":"Infinity"})', async () => {
      const r = await send('POST', '/node-jobs/sync', { running: 'Infinity' }, 'node');
      expect(r.status).toBe(400);
      expect(paths(r)).toEqual(['/running']);
    });

    it("for anything but a list of strings inside a finish's results", async () => {
      for (const results of [{ web: { out: 'x' } }, { web: { out: [1] } }, { web: { out: ['x'], extra: { a: 1 } } }]) {
        const r = await send('POST', '/node-jobs/4Fz9xq1TNvfbGp5yEjL7uKcWdRb2hS3aM6nVtYk8PJDw/finish', { status: 'completed', results, ops: [] }, 'node');
        expect([JSON.stringify(results), r.status]).toEqual([JSON.stringify(results), 400]);
        expect(paths(r).length).toBeGreaterThan(0);
      }
    });

    it('for a query integer ("offset=1e308" on GET /nodes)', async () => {
      const r = await send('GET', '/nodes?offset=1e308');
      expect(r.status).toBe(400);
      expect(paths(r)).toEqual(['/offset']);
    });
  });

  describe('a NUL byte is a 400 naming the field, never a 500', () => {
    it.each([
      ['a path parameter', 'GET', '/markets/a%00b', undefined, '/market'],
      ['a query parameter', 'GET', '/nodes?market=a%00b', undefined, '/market'],
      ['a login field', 'POST', '/auth/login', { email: 'a\u0000@example.com', password: 'secret' }, '/email'],
      [
        "a job's cmd",
        'POST',
        '/jobs',
        { market: 'x', definition: { version: '0.1', type: 'container', ops: [{ type: 'container/run', id: 'a', args: { image: 'busybox', cmd: ['sh\u0000'] } }] } },
        '/definition/ops/0/args/cmd/0',
      ],
    ])('in %s', async (_what, method, path, body, field) => {
      const r = await send(method, path, body);
      expect(r.status).toBe(400);
      expect(paths(r)).toContain(field);
    });
  });

  it('answers a node route with a body nested 10,000 deep with a 400 and no internal text', async () => {
    const raw = '{"running":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}';
    const r = await send('POST', '/node-jobs/sync', undefined, 'node', raw);
    expect(r.status).toBe(400);
    expect(r.text).not.toMatch(/call stack/i);
  });

  it('takes and returns a node memory over 2^31 bytes (memoryBytes is an int64)', async () => {
    const schemas = (openApiDocument as any).components.schemas;
    expect(schemas.NodeSpecs.properties.memoryBytes.format).toBe('int64');
    expect(schemas.NodeGpu.properties.memoryBytes.format).toBe('int64');
    const big = 512 * 2 ** 30;
    const heartbeat = { specs: { cpus: 64, memoryBytes: big, gpus: [{ model: 'H100', memoryBytes: 80 * 2 ** 30 }] } };
    expect((await send('POST', '/nodes/heartbeat', heartbeat, 'node')).status).toBe(200);
    const node = await send('GET', `/nodes/${s.node.address}`);
    expect(node.body.specs).toMatchObject({ memoryBytes: big, gpus: [{ memoryBytes: 80 * 2 ** 30 }] });
  });

  it('answers request headers that are too large with 431 and the error shape', async () => {
    const url = new URL(s.gateway);
    const reply = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: '/auth/scopes', headers: { 'x-big': 'x'.repeat(64 * 1024) } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(reply.status).toBe(431);
    expect(JSON.parse(reply.text)).toMatchObject({ status: 431, code: 'VALIDATION_FAILED', message: 'Request headers are too large' });
  });
});
