import { request as httpRequest } from 'node:http';
import { echoRoutes, startApp, type TestServer } from './support';

/** A small description: one operation with a bounded array of unions, a bounded string and a path parameter. */
const document = {
  openapi: '3.1.0',
  paths: {
    '/echo': {
      post: {
        'x-service': 'http-test',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Body' } } } },
      },
    },
    '/things/{thing}': {
      get: {
        'x-service': 'http-test',
        parameters: [
          { name: 'thing', in: 'path', schema: { type: 'string', maxLength: 8 } },
          { name: 'q', in: 'query', schema: { type: 'string', maxLength: 4 } },
        ],
      },
    },
  },
  components: {
    schemas: {
      Short: { type: 'string', maxLength: 2 },
      Body: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            maxItems: 10,
            items: {
              oneOf: [
                { type: 'string', enum: ['a'] },
                { type: 'object', properties: { n: { type: 'string', maxLength: 3 } } },
              ],
            },
          },
          name: { type: 'string', maxLength: 5 },
          wrapped: { allOf: [{ $ref: '#/components/schemas/Short' }], description: 'as tsoa wraps a reference' },
          tags: { type: 'object', maxProperties: 2, additionalProperties: { type: 'string', maxLength: 2 } },
        },
      },
    },
  },
};

interface ErrorAnswer {
  status: number;
  bytes: number;
  ms: number;
  body: { name: string; message: string; errors?: Array<{ path: string; message: string }>; moreErrors?: number };
}

async function send(t: TestServer, path: string, body?: unknown): Promise<ErrorAnswer> {
  const started = performance.now();
  const res = await fetch(
    `${t.url}${path}`,
    body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) },
  );
  const text = await res.text();
  return { status: res.status, bytes: Buffer.byteLength(text), ms: performance.now() - started, body: JSON.parse(text) };
}

describe('the request check before validation', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startApp(
      (app) => {
        echoRoutes(app);
        app.get('/things/:thing', (req, res) => void res.json({ thing: req.params.thing }));
        // A route that would answer 500 for any validation error it got: proves the check answers first.
        app.post('/deep', (_req, res) => void res.json({ ok: true }));
      },
      { contract: { document, service: 'http-test' } },
    );
  });
  afterAll(() => t.close());

  it('refuses an array over maxItems by its length, without looking at its 100,000 invalid items', async () => {
    const r = await send(t, '/echo', { items: Array.from({ length: 100_000 }, () => ({})) });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([{ path: '/items', message: 'must have at most 10 items (has 100000)' }]);
    expect(r.ms).toBeLessThan(1000);
  });

  it('checks strings, members and union alternatives inside a bounded array', async () => {
    const r = await send(t, '/echo', { items: ['a', { n: 'abcd' }], name: 'toolong', tags: { a: 'x', b: 'y', c: 'z' } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { path: '/items/1/n', message: 'must be at most 3 characters long' },
      { path: '/name', message: 'must be at most 5 characters long' },
      { path: '/tags', message: 'must have at most 2 members (has 3)' },
    ]);
  });

  it('reports a problem inside an allOf wrapper once', async () => {
    const r = await send(t, '/echo', { wrapped: 'ab\u0000' });
    expect(r.body.errors).toEqual([
      { path: '/wrapped', message: 'must be at most 2 characters long' },
      { path: '/wrapped', message: 'must not contain the NUL character (U+0000)' },
    ]);
  });

  it('counts characters as code points, as JSON Schema does', async () => {
    expect((await send(t, '/echo', { name: '😀😀😀😀😀' })).status).toBe(200);
  });

  it('names at most 20 field errors, counts the rest, and keeps the body small', async () => {
    const r = await send(t, '/deep', { a: Array.from({ length: 50_000 }, () => '\u0000') });
    expect(r.status).toBe(400);
    expect(r.body.errors).toHaveLength(20);
    expect(r.body.moreErrors).toBe(49_980);
    expect(r.body.message).toContain('(and 49999 more)');
    expect(r.bytes).toBeLessThan(64 * 1024);
  });

  it('refuses JSON nested 10,000 deep with a 400, not a stack overflow', async () => {
    const r = await send(t, '/deep', '{"a":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}');
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]?.message).toBe('nests deeper than 64 levels');
  });

  it.each([
    ['a NUL byte in a body string', { name: 'a\u0000' }, '/name', 'must not contain the NUL character (U+0000)'],
    ['a lone surrogate in a body string', '{"name":"\\ud800x"}', '/name', 'must not contain an unpaired surrogate (invalid Unicode)'],
    ['a NUL byte in a member name', { tags: { 'a\u0000': 'x' } }, '/tags/a\u0000', 'member name must not contain the NUL character (U+0000)'],
  ])('answers 400 naming the field for %s', async (_what, body, path, message) => {
    const r = await send(t, '/echo', body);
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([{ path, message }]);
  });

  it('checks path and query parameters by name', async () => {
    expect((await send(t, '/things/ab%00c')).body.errors).toEqual([{ path: '/thing', message: 'must not contain the NUL character (U+0000)' }]);
    expect((await send(t, '/things/abcdefghij')).body.errors).toEqual([{ path: '/thing', message: 'must be at most 8 characters long' }]);
    expect((await send(t, '/things/ok?q=%00')).body.errors).toEqual([{ path: '/q', message: 'must not contain the NUL character (U+0000)' }]);
    expect((await send(t, '/things/ok?q=12345')).body.errors).toEqual([{ path: '/q', message: 'must be at most 4 characters long' }]);
    expect((await send(t, '/things/ok?q=1234')).status).toBe(200);
  });

  it('refuses NUL bytes in the path and query of routes the description does not name', async () => {
    expect((await send(t, '/nowhere/%00')).status).toBe(400);
    expect((await send(t, '/nowhere?x=%00')).status).toBe(400);
  });
});

describe('requests node rejects before any handler', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startApp(echoRoutes);
  });
  afterAll(() => t.close());

  it('answers headers that are too large with 431 and the error shape', async () => {
    const url = new URL(t.url);
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: '/healthz', headers: { 'x-big': 'x'.repeat(64 * 1024) } }, (res) => {
        let data = '';
        res.on('data', (c: Buffer) => (data += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: data }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(431);
    expect(JSON.parse(text)).toMatchObject({ name: 'RequestHeaderFieldsTooLargeError', status: 431, message: 'Request headers are too large' });
  });
});
