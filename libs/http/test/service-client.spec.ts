import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import {
  ConflictError,
  HttpError,
  INTERNAL_TOKEN_HEADER,
  MalformedBodyError,
  NotFoundError,
  QuotaExceededError,
  ServiceClient,
  ServiceUnavailableError,
  TooManyRequestsError,
  ValidationError,
  upstreamPool,
  type ServiceClientOptions,
} from '../src';
import { startApp, type TestServer } from './support';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, attempt: number) => void;

/** A real server on 127.0.0.1 that records every request and answers through `handler`. */
async function upstream(handler: Handler): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() });
      handler(req, res, seen.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

/** The dispatcher as it is, recording the signal of each request it is given. */
const watched = (dispatcher: Dispatcher, signals: AbortSignal[]): Dispatcher =>
  Object.assign(Object.create(dispatcher) as Dispatcher, {
    request: (opts: Dispatcher.RequestOptions) => {
      signals.push(opts.signal as AbortSignal);
      return dispatcher.request(opts);
    },
  });

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function serve(handler: Handler, opts: Partial<ServiceClientOptions> = {}) {
  const up = await upstream(handler);
  opened.push(up);
  const client = new ServiceClient({ service: 'upstream', baseUrl: up.url, retryBaseMs: 5, retryMaxMs: 20, ...opts });
  return { up, client };
}

const caught = async (p: Promise<unknown>): Promise<Error> =>
  p.then(
    () => new Error('resolved'),
    (e: Error) => e,
  );

describe('ServiceClient', () => {
  it('sends JSON to the path on the base URL with the internal credential under its one header name', async () => {
    const { up, client } = await serve((_req, res) => json(res, 201, { id: 'h1' }), { internalToken: 'secret-token' });
    const res = await client.request<{ id: string }>({ method: 'POST', path: '/credits/holds?x=1', body: { amount: 2 } });
    expect(res).toMatchObject({ status: 201, ok: true, body: { id: 'h1' } });
    expect(up.seen).toHaveLength(1);
    expect(up.seen[0]).toMatchObject({ method: 'POST', url: '/credits/holds?x=1', body: '{"amount":2}' });
    expect(INTERNAL_TOKEN_HEADER).toBe('x-ocg-internal-token');
    expect(up.seen[0].headers).toMatchObject({ 'x-ocg-internal-token': 'secret-token', 'content-type': 'application/json', accept: 'application/json' });
  });

  it('sends no credential header when none is configured, and no body on a GET', async () => {
    const { up, client } = await serve((_req, res) => json(res, 200, {}));
    await client.request({ path: '/a' });
    expect(up.seen[0].headers[INTERNAL_TOKEN_HEADER]).toBeUndefined();
    expect(up.seen[0].headers['content-type']).toBeUndefined();
    expect(up.seen[0].body).toBe('');
  });

  it('forwards the request id and traceparent it is given', async () => {
    const { up, client } = await serve((_req, res) => json(res, 200, {}));
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await client.request({ path: '/a', context: { requestId: 'req-42', traceparent } });
    expect(up.seen[0].headers).toMatchObject({ 'x-request-id': 'req-42', traceparent });
  });

  describe('inside a request being served', () => {
    let app: TestServer;
    afterEach(() => app.close());

    it('forwards that request id and traceparent without being told', async () => {
      const { up, client } = await serve((_req, res) => json(res, 200, { ok: 1 }));
      app = await startApp((a) => a.get('/outer', (_req, res, next) => client.send({ path: '/inner' }).then((b) => res.json(b), next)));
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const res = await fetch(`${app.url}/outer`, { headers: { 'x-request-id': 'outer-1', traceparent } });
      expect(await res.json()).toEqual({ ok: 1 });
      expect(up.seen[0].headers).toMatchObject({ 'x-request-id': 'outer-1', traceparent });
    });

    it('forwards the request id after a body was read, and a new trace in place of a malformed traceparent', async () => {
      const { up, client } = await serve((_req, res) => json(res, 200, { ok: 1 }));
      app = await startApp((a) => a.post('/outer', (_req, res, next) => client.send({ path: '/inner' }).then((b) => res.json(b), next)));
      const res = await fetch(`${app.url}/outer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'outer-2', traceparent: 'nonsense' },
        body: '{"a":1}',
      });
      expect(res.status).toBe(200);
      expect(up.seen[0].headers['x-request-id']).toBe('outer-2');
      expect(up.seen[0].headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[0-3]$/);
    });

    it('answers the outer request with the typed error of a 4xx from the service', async () => {
      const { client } = await serve((_req, res) => json(res, 404, { name: 'NotFoundError', message: 'No market "x"', status: 404, code: 'NOT_FOUND' }));
      app = await startApp((a) => a.get('/outer', (_req, res, next) => client.send({ path: '/inner' }).then((b) => res.json(b), next)));
      const res = await fetch(`${app.url}/outer`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ name: 'NotFoundError', message: 'No market "x"', code: 'NOT_FOUND' });
    });
  });

  describe('timeouts', () => {
    it('gives up on a silent service within the budget with a 503 naming it', async () => {
      const { up, client } = await serve(() => undefined, { timeoutMs: 300 });
      const started = Date.now();
      const err = await caught(client.request({ path: '/slow' }));
      expect(Date.now() - started).toBeLessThan(3000);
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err.message).toBe('upstream is unavailable; try again shortly');
      expect((err as HttpError).internalDetail).toMatch(/^upstream: no answer/);
      // The budget covers the whole call: the attempt that used it up is not repeated.
      expect(up.seen).toHaveLength(1);
    });

    it('takes a per-call budget over the client one', async () => {
      const { client } = await serve(() => undefined, { timeoutMs: 60_000 });
      const started = Date.now();
      await expect(client.request({ path: '/slow', timeoutMs: 200 })).rejects.toBeInstanceOf(ServiceUnavailableError);
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('ends the budget with the call: nothing aborts an answered call afterwards, over fetch or a dispatcher', async () => {
      const signals: AbortSignal[] = [];
      const { up, client } = await serve((_req, res) => json(res, 200, { ok: 1 }), {
        timeoutMs: 500,
        fetch: (input, init) => {
          signals.push(init?.signal as AbortSignal);
          return globalThis.fetch(input, init);
        },
      });
      const pool = upstreamPool(up.url, { connections: 1 });
      opened.push(pool);
      const pooled = new ServiceClient({ service: 'upstream', baseUrl: up.url, timeoutMs: 500, dispatcher: watched(pool, signals) });
      await expect(client.send({ path: '/a' })).resolves.toEqual({ ok: 1 });
      await expect(pooled.send({ path: '/a' })).resolves.toEqual({ ok: 1 });
      await delay(600);
      expect(signals.map((s) => s.aborted)).toEqual([false, false]);
    });

    it('throws the caller’s own abort as it is, not as the service being unavailable', async () => {
      const { client } = await serve(() => undefined);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const err = await caught(client.request({ path: '/slow', signal: controller.signal }));
      expect(err).not.toBeInstanceOf(ServiceUnavailableError);
      expect(err.name).toBe('AbortError');
    });
  });

  describe('retries', () => {
    it('retries a GET after 503 and 502 and answers the first success', async () => {
      const { up, client } = await serve((_req, res, n) => (n === 1 ? json(res, 503, {}) : n === 2 ? json(res, 502, {}) : json(res, 200, { n })));
      await expect(client.send({ path: '/a' })).resolves.toEqual({ n: 3 });
      expect(up.seen).toHaveLength(3);
    });

    it('stops after the configured number of retries and answers the last status', async () => {
      const { up, client } = await serve((_req, res) => json(res, 503, { message: 'db down' }), { retries: 3 });
      const err = await caught(client.send({ method: 'DELETE', path: '/a' }));
      expect(up.seen).toHaveLength(4);
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect((err as HttpError).internalDetail).toBe('upstream answered 503: db down');
    });

    it('pauses a random time below the doubling ceiling between attempts', async () => {
      const { up, client } = await serve((_req, res) => json(res, 504, {}), { retries: 4, retryBaseMs: 40, retryMaxMs: 80 });
      await client.request({ method: 'PUT', path: '/a', body: {} });
      expect(up.seen).toHaveLength(5);
      const gaps = up.seen.slice(1).map((s, i) => s.at - up.seen[i].at);
      // Ceilings 40, 80, 80, 80 ms; generous margin for a loaded machine.
      gaps.forEach((gap) => expect(gap).toBeLessThan(80 + 1000));
    });

    it('retries a GET whose connection was refused, then gives up with a 503', async () => {
      const probe = await upstream(() => undefined);
      await probe.close();
      const client = new ServiceClient({ service: 'gone', baseUrl: probe.url, retryBaseMs: 5 });
      const err = await caught(client.find('/a'));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err.message).toBe('gone is unavailable; try again shortly');
    });

    it('does not retry a POST, unless the call says it is idempotent', async () => {
      const first = await serve((_req, res) => json(res, 503, {}));
      await expect(first.client.send({ method: 'POST', path: '/a', body: {} })).rejects.toBeInstanceOf(ServiceUnavailableError);
      expect(first.up.seen).toHaveLength(1);
      const second = await serve((_req, res, n) => (n === 1 ? json(res, 503, {}) : json(res, 201, { held: true })));
      await expect(second.client.send({ method: 'POST', path: '/a', body: {}, idempotent: true })).resolves.toEqual({ held: true });
      expect(second.up.seen).toHaveLength(2);
    });

    it.each([400, 401, 404, 409, 429, 500])('does not retry a GET answered %i', async (status) => {
      const { up, client } = await serve((_req, res) => json(res, status, { message: 'no' }));
      const res = await client.request({ path: '/a' });
      expect(res.status).toBe(status);
      expect(up.seen).toHaveLength(1);
    });
  });

  describe('the error shape mapped back to typed errors', () => {
    const answer = async (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const { client } = await serve((_req, res) => json(res, status, body, headers));
      return caught(client.send({ path: '/a' }));
    };

    it('400 with field errors: ValidationError with the same message and fields', async () => {
      const errors = [{ path: '/amount', message: 'must be >= 1' }];
      const err = await answer(400, { name: 'ValidationError', message: 'Validation failed: /amount: must be >= 1', status: 400, code: 'VALIDATION_FAILED', errors });
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', message: 'Validation failed: /amount: must be >= 1', errors });
    });

    it('400 MALFORMED_BODY: MalformedBodyError', async () => {
      expect(await answer(400, { message: 'Malformed JSON body', code: 'MALFORMED_BODY' })).toBeInstanceOf(MalformedBodyError);
    });

    it('409 keeps conflict and quota apart', async () => {
      expect(await answer(409, { message: 'taken', code: 'CONFLICT' })).toBeInstanceOf(ConflictError);
      expect(await answer(409, { message: 'too many', code: 'QUOTA_EXCEEDED' })).toBeInstanceOf(QuotaExceededError);
    });

    it('429 keeps Retry-After', async () => {
      const err = await answer(429, { message: 'slow down' }, { 'retry-after': '7' });
      expect(err).toBeInstanceOf(TooManyRequestsError);
      expect((err as HttpError).headers).toEqual({ 'Retry-After': '7' });
    });

    it('another 4xx keeps its status and known code; an unknown code becomes the status’s', async () => {
      expect(await answer(402, { message: 'pay', code: 'INSUFFICIENT_BALANCE' })).toMatchObject({ status: 402, code: 'INSUFFICIENT_BALANCE', message: 'pay' });
      expect(await answer(403, { message: 'nope', code: 'MADE_UP' })).toMatchObject({ status: 403, code: 'FORBIDDEN', name: 'ForbiddenError' });
    });

    it('a 4xx without the error shape names the service and status', async () => {
      const { client } = await serve((_req, res) => res.writeHead(418).end('teapot'));
      expect(await caught(client.send({ path: '/a' }))).toMatchObject({ status: 418, message: 'upstream answered 418' });
    });

    it('a 500 becomes a 503 naming the service; its message is only logged', async () => {
      const err = await answer(500, { name: 'InternalError', message: 'Internal server error', code: 'INTERNAL' });
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err.message).toBe('upstream is unavailable; try again shortly');
      expect((err as HttpError).internalDetail).toBe('upstream answered 500: Internal server error');
    });

    it('find answers undefined for a 404 and the body for a 200', async () => {
      const { client } = await serve((req, res) => (req.url === '/there' ? json(res, 200, { a: 1 }) : json(res, 404, {})));
      await expect(client.find('/there')).resolves.toEqual({ a: 1 });
      await expect(client.find('/missing')).resolves.toBeUndefined();
      await expect(client.send({ path: '/missing' })).rejects.toBeInstanceOf(NotFoundError);
    });

    it('a body that is not JSON reads as undefined, with its text kept', async () => {
      const { client } = await serve((_req, res) => res.writeHead(200).end('plain words'));
      await expect(client.request({ path: '/a' })).resolves.toMatchObject({ status: 200, body: undefined, text: 'plain words' });
    });
  });

  describe('over kept connections (a dispatcher instead of fetch)', () => {
    const pooled = async (handler: Handler, opts: Partial<ServiceClientOptions> = {}) => {
      const up = await upstream(handler);
      const pool = upstreamPool(up.url, { connections: 2 });
      opened.push({ close: () => pool.close().then(() => up.close()) });
      return { up, pool, client: new ServiceClient({ service: 'upstream', baseUrl: up.url, retryBaseMs: 5, retryMaxMs: 20, dispatcher: pool, ...opts }) };
    };

    it('sends the same request over the pool’s connection and reads the answer', async () => {
      const { up, pool, client } = await pooled((_req, res) => json(res, 201, { id: 'h1' }), { internalToken: 'secret-token' });
      const res = await client.request<{ id: string }>({ method: 'POST', path: '/credits/holds?x=1', body: { amount: 2 }, context: { requestId: 'req-7' } });
      expect(res).toMatchObject({ status: 201, ok: true, body: { id: 'h1' }, text: '{"id":"h1"}' });
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(pool.stats.connected).toBe(1);
      expect(up.seen[0]).toMatchObject({ method: 'POST', url: '/credits/holds?x=1', body: '{"amount":2}' });
      expect(up.seen[0].headers).toMatchObject({ 'x-ocg-internal-token': 'secret-token', 'content-type': 'application/json', 'x-request-id': 'req-7' });
      await client.request({ path: '/a' });
      expect(up.seen[1]).toMatchObject({ method: 'GET', url: '/a', body: '' });
      expect(up.seen[1].headers['content-type']).toBeUndefined();
    });

    it('retries as over fetch, and maps the last answer (with its Retry-After) to the typed error', async () => {
      const { up, client } = await pooled((_req, res, n) => (n === 1 ? json(res, 503, {}) : json(res, 429, { message: 'slow down' }, { 'retry-after': '7' })));
      const err = await caught(client.send({ path: '/a' }));
      expect(up.seen).toHaveLength(2);
      expect(err).toBeInstanceOf(TooManyRequestsError);
      expect((err as HttpError).headers).toEqual({ 'Retry-After': '7' });
      const first = await pooled((_req, res) => json(res, 503, {}));
      await expect(first.client.send({ method: 'POST', path: '/a', body: {} })).rejects.toBeInstanceOf(ServiceUnavailableError);
      expect(first.up.seen).toHaveLength(1);
    });

    it('gives up within the budget with a 503, throws the caller’s abort as it is, and reads a body that is not JSON as undefined', async () => {
      const silent = await pooled((req, res) => (req.url === '/plain' ? res.writeHead(200).end('plain words') : undefined), { timeoutMs: 300 });
      const err = await caught(silent.client.request({ path: '/slow' }));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect((err as HttpError).internalDetail).toMatch(/^upstream: no answer/);
      expect(silent.up.seen).toHaveLength(1);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const aborted = await caught(silent.client.request({ path: '/slow', timeoutMs: 60_000, signal: controller.signal }));
      expect(aborted).not.toBeInstanceOf(ServiceUnavailableError);
      expect(aborted.name).toBe('AbortError');
      await expect(silent.client.request({ path: '/plain' })).resolves.toMatchObject({ status: 200, body: undefined, text: 'plain words' });
    });

    it('retries a GET whose connection was refused, then gives up with a 503', async () => {
      const probe = await upstream(() => undefined);
      await probe.close();
      const pool = upstreamPool(probe.url, { connections: 1 });
      opened.push(pool);
      const client = new ServiceClient({ service: 'gone', baseUrl: probe.url, retryBaseMs: 5, dispatcher: pool });
      const err = await caught(client.find('/a'));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect((err as HttpError).internalDetail).toMatch(/^gone: no answer/);
    });
  });
});
