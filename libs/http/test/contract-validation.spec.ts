/** Requests and answers held to an OpenAPI document: parameters before routing, JSON answers before sending. */
import { contractValidation } from '../src';
import { startApp, type TestServer } from './support';

const thing = {
  type: 'object',
  required: ['id', 'count'],
  additionalProperties: false,
  properties: { id: { type: 'string' }, count: { type: 'integer', format: 'int32', minimum: 0 } },
};
const document = {
  openapi: '3.1.0',
  paths: {
    '/things/{thing}': {
      get: {
        'x-service': 'http-test',
        parameters: [
          { name: 'thing', in: 'path', required: true, schema: { type: 'string', maxLength: 8 } },
          { name: 'tail', in: 'query', schema: { type: 'integer', format: 'int32', minimum: 0 } },
        ],
        responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, '404': { $ref: '#/components/responses/NotFound' } },
      },
    },
  },
  components: {
    schemas: { Thing: thing, ErrorBody: { type: 'object', required: ['name', 'message'], properties: { name: { type: 'string' }, message: { type: 'string' } } } },
    responses: { NotFound: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } } },
  },
};

let server: TestServer;
beforeAll(async () => {
  server = await startApp((app) => {
    app.use(contractValidation({ document }));
    app.get('/things/:thing', (req, res) => {
      if (req.params.thing === 'gone') return void res.status(404).json({ name: 'NotFoundError' });
      if (req.params.thing === 'bad') return void res.json({ id: 'bad', count: -1, extra: true });
      res.json({ id: req.params.thing, count: Number(req.query.tail ?? 0) });
    });
    app.get('/other', (_req, res) => res.json({ anything: 'goes' }));
  });
});
afterAll(() => server?.close());

const get = async (path: string) => {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('contractValidation', () => {
  it('lets a request and an answer the document allows through, reading a number parameter as one', async () => {
    expect(await get('/things/abc?tail=3')).toEqual({ status: 200, body: { id: 'abc', count: 3 } });
  });

  it('answers 400 naming the parameter for a query value the document refuses, before the route runs', async () => {
    const answer = await get('/things/abc?tail=-1');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ name: 'ValidationError', errors: [{ path: '/tail', message: 'must be >= 0' }] });
    expect((await get('/things/abc?tail=x')).body).toMatchObject({ errors: [{ path: '/tail', message: 'must be integer' }] });
  });

  it('answers 400 for a path parameter the document refuses', async () => {
    expect((await get('/things/far-too-long')).body).toMatchObject({ status: 400, errors: [{ path: '/thing', message: 'must NOT have more than 8 characters' }] });
  });

  it('sends a 500 instead of an answer that breaks its schema, and logs what broke', async () => {
    const answer = await get('/things/bad');
    expect(answer).toMatchObject({ status: 500, body: { name: 'InternalError', message: 'Internal server error' } });
    const line = await server.logs.waitFor((l) => l.msg === 'answer breaks the API document; sent 500 instead');
    expect(line).toMatchObject({ level: 'error', operation: 'GET /things/{thing}', status: 200 });
    expect(JSON.stringify(line.errors)).toContain('must be >= 0');
  });

  it('checks error answers against the response the document names for their status', async () => {
    expect(await get('/things/gone')).toMatchObject({ status: 500, body: { name: 'InternalError' } });
  });

  it('leaves what the document does not describe alone', async () => {
    expect(await get('/other')).toEqual({ status: 200, body: { anything: 'goes' } });
  });
});
