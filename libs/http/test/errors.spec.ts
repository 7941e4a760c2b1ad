import type { Express } from 'express';
import { ExpressTemplateService, ValidateError, type TsoaRoute } from '@tsoa/runtime';
import { ConflictError, ForbiddenError, HttpError, NotFoundError, ServiceUnavailableError, TooManyRequestsError, UnauthorizedError, ValidationError } from '../src';
import { startApp, type TestServer } from './support';

/** The models and config tsoa generates for `@Body() body: CreateKeyRequest`, `@Path() id: number`. */
const models: TsoaRoute.Models = {
  CreateKeyRequest: {
    dataType: 'refObject',
    properties: {
      name: { dataType: 'string', required: true, validators: { minLength: { value: 1 } } },
      scopes: { dataType: 'array', array: { dataType: 'enum', enums: ['jobs:read', 'jobs:write'] }, required: true },
      limits: { dataType: 'nestedObjectLiteral', nestedProperties: { cpu: { dataType: 'double', required: true } } },
    },
    additionalProperties: false,
  },
};
const tsoa = new ExpressTemplateService(models, { noImplicitAdditionalProperties: 'throw-on-extras', bodyCoercion: true });
const args: Record<string, TsoaRoute.ParameterSchema> = {
  id: { in: 'path', name: 'id', required: true, dataType: 'double' },
  body: { in: 'body', name: 'body', required: true, ref: 'CreateKeyRequest' },
};

const thrown: Record<string, () => Error> = {
  validation: () => new ValidationError('name is too long', [{ path: '/name', message: 'maxLength 100' }]),
  unauthorized: () => new UnauthorizedError(),
  forbidden: () => new ForbiddenError('missing scope keys:write'),
  'not-found': () => new NotFoundError('No key key_9'),
  conflict: () => new ConflictError('name taken'),
  'rate-limited': () => new TooManyRequestsError('slow down', 2.2),
  unavailable: () => new ServiceUnavailableError('redis is down'),
  payment: () => new HttpError(402, 'INSUFFICIENT_BALANCE', 'balance 3 < 10'),
};

function routes(app: Express): void {
  app.get('/throw/:kind', (req) => {
    throw thrown[req.params['kind']!]!();
  });
  app.get('/boom', () => {
    throw new Error('connect ECONNREFUSED postgres://app:s3cret@db:5432/ocg');
  });
  app.get('/async-boom', (_req, _res, next) => {
    setImmediate(() => next(Object.assign(new Error('pool exhausted'), { status: 500, detail: 'internal detail' })));
  });
  app.get('/client-status', (_req, _res, next) => next(Object.assign(new Error('Token expired'), { status: 401 })));
  app.get('/things/:id', (req, res) => res.json({ id: req.params['id'] }));
  app.get('/half-sent', (_req, res) => {
    res.status(200).write('partial');
    throw new Error('late failure');
  });
  app.post('/keys/:id', (req, res, next) => {
    try {
      tsoa.getValidatedArgs({ args, request: req, response: res });
      res.status(201).json({ ok: true });
    } catch (err) {
      next(err);
    }
  });
  app.post('/synthetic-tsoa', () => {
    throw new ValidateError({ 'requestBody.scopes.$0': { message: 'bad scope', value: 'x' }, 'body.a/b': { message: 'odd name' } }, '');
  });
}

interface Body {
  name: string;
  message: string;
  status?: number;
  code?: string;
  requestId?: string;
  errors?: { path: string; message: string }[];
}

describe('error handling', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startApp(routes);
  });
  afterAll(() => t.close());

  const call = async (path: string, init?: RequestInit): Promise<{ res: Response; body: Body }> => {
    const res = await fetch(`${t.url}${path}`, init);
    return { res, body: (await res.json()) as Body };
  };

  it('answers 404 NotFound with the error shape for an unknown route', async () => {
    const { res, body } = await call('/nowhere');
    expect(res.status).toBe(404);
    expect(body).toEqual({ name: 'NotFoundError', message: 'No route for GET /nowhere', status: 404, code: 'NOT_FOUND', requestId: res.headers.get('x-request-id') });
  });

  it.each([
    ['validation', 400, 'ValidationError', 'VALIDATION_FAILED'],
    ['unauthorized', 401, 'UnauthorizedError', 'UNAUTHENTICATED'],
    ['forbidden', 403, 'ForbiddenError', 'FORBIDDEN'],
    ['not-found', 404, 'NotFoundError', 'NOT_FOUND'],
    ['conflict', 409, 'ConflictError', 'CONFLICT'],
    ['rate-limited', 429, 'TooManyRequestsError', 'RATE_LIMITED'],
    ['unavailable', 503, 'ServiceUnavailableError', 'SERVICE_UNAVAILABLE'],
    ['payment', 402, 'PaymentRequiredError', 'INSUFFICIENT_BALANCE'],
  ])('answers a thrown %s error with status %i, name and code', async (kind, status, name, code) => {
    const { res, body } = await call(`/throw/${kind}`);
    expect(res.status).toBe(status);
    expect(body).toMatchObject({ name, code, status, message: thrown[kind]!().message });
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('keeps field errors of a thrown ValidationError', async () => {
    const { body } = await call('/throw/validation');
    expect(body.errors).toEqual([{ path: '/name', message: 'maxLength 100' }]);
  });

  it('tells when to retry with every 503 (Retry-After, seconds)', async () => {
    const { res } = await call('/throw/unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
  });

  it('sends Retry-After in whole seconds with a 429', async () => {
    const { res } = await call('/throw/rate-limited');
    expect(res.headers.get('retry-after')).toBe('3');
  });

  it('answers 500 without internals and logs the error with stack and request id', async () => {
    const { res, body } = await call('/boom', { headers: { 'x-request-id': 'boom-1' } });
    expect(res.status).toBe(500);
    expect(body).toEqual({ name: 'InternalError', message: 'Internal server error', status: 500, code: 'INTERNAL', requestId: 'boom-1' });
    const line = await t.logs.waitFor((l) => l['requestId'] === 'boom-1' && l['msg'] === 'unhandled error');
    expect(line['level']).toBe('error');
    const err = line['err'] as { message: string; stack: string };
    expect(err.stack).toContain('errors.spec.ts');
    // The connection string's password is scrubbed even from the log.
    expect(err.message).toBe('connect ECONNREFUSED postgres://[Redacted]@db:5432/ocg');
    expect(t.logs.text()).not.toContain('s3cret');
  });

  it('answers 500 without internals for an error passed to next() with a 5xx status', async () => {
    const { res, body } = await call('/async-boom');
    expect(res.status).toBe(500);
    expect(JSON.stringify(body)).not.toMatch(/pool|internal detail/);
  });

  it('keeps status and message of a 4xx error from another library', async () => {
    const { res, body } = await call('/client-status');
    expect(res.status).toBe(401);
    expect(body).toMatchObject({ name: 'UnauthorizedError', code: 'UNAUTHENTICATED', message: 'Token expired' });
  });

  it('answers 400 with the error shape for an undecodable path parameter', async () => {
    const { res, body } = await call('/things/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(body.code).toBe('VALIDATION_FAILED');
  });

  it('maps a tsoa ValidateError to 400 ValidationError with JSON pointers', async () => {
    const payload = { name: '', scopes: ['jobs:read', 'nope'], limits: { cpu: 'x', gpu: 1 }, extra: true };
    const { res, body } = await call('/keys/abc', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
    expect(res.status).toBe(400);
    expect(body).toMatchObject({ name: 'ValidationError', code: 'VALIDATION_FAILED', status: 400 });
    const paths = body.errors!.map((e) => e.path).sort();
    expect(paths).toEqual(['/extra', '/id', '/limits/cpu', '/limits/gpu', '/name', '/scopes/1']);
    expect(body.message).toMatch(/^Validation failed: \/\S+: .+ \(and 5 more\)$/);
    expect(body.errors!.find((e) => e.path === '/extra')!.message).toBe('is not an allowed member');
  });

  it('reports a missing body as a required request body at the root pointer', async () => {
    const { res, body } = await call('/keys/1', { method: 'POST' });
    expect(res.status).toBe(400);
    expect(body.errors).toEqual([{ path: '', message: 'A request body is required' }]);
    expect(body.message).toBe('Validation failed: request body: A request body is required');
  });

  it('turns $n segments into indexes and escapes / in member names', async () => {
    const { body } = await call('/synthetic-tsoa', { method: 'POST' });
    expect(body.errors).toEqual([
      { path: '/scopes/0', message: 'bad scope' },
      { path: '/a~1b', message: 'odd name' },
    ]);
  });

  it('cuts the connection when the error comes after the headers were sent', async () => {
    await expect(fetch(`${t.url}/half-sent`).then((r) => r.text())).rejects.toThrow();
  });
});
