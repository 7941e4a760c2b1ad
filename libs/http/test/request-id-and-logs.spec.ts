import type { Express } from 'express';
import { startApp, type TestServer } from './support';
import { createLogger } from '../src/logger';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function routes(app: Express): void {
  app.get('/id', (req, res) => {
    req.log.info('inside the handler');
    res.json({ id: req.id, header: req.headers['x-request-id'] });
  });
  // Whether the request object got a property of its own (a per-request accessor makes it a slow dictionary).
  app.get('/log-shape', (req, res) => {
    const first = req.log;
    res.json({ own: Object.prototype.hasOwnProperty.call(req, 'log'), same: req.log === first });
  });
  // A careless handler: logs headers and body wholesale.
  app.post('/careless', (req, res) => {
    req.log.info({ headers: req.headers, body: req.body }, 'careless');
    res.status(204).end();
  });
}

describe('request ids', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startApp(routes);
  });
  afterAll(() => t.close());

  const get = (id?: string): Promise<Response> => fetch(`${t.url}/id`, { headers: id === undefined ? {} : { 'x-request-id': id } });

  it('generates a uuid when none is sent and echoes it in the header and on req', async () => {
    const res = await get();
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(UUID);
    expect(await res.json()).toEqual({ id, header: id });
  });

  it('forwards a sane incoming id unchanged', async () => {
    const res = await get('gw-01HZX.abc_9');
    expect(res.headers.get('x-request-id')).toBe('gw-01HZX.abc_9');
    expect(((await res.json()) as { id: string }).id).toBe('gw-01HZX.abc_9');
  });

  it.each([
    ['with spaces', 'a b'],
    ['with a quote', 'abc"def'],
    ['longer than 128 characters', 'x'.repeat(129)],
    ['empty', ''],
  ])('replaces an incoming id %s with a new uuid', async (_what, id) => {
    const res = await get(id);
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  it('accepts an id of exactly 128 characters', async () => {
    const res = await get('y'.repeat(128));
    expect(res.headers.get('x-request-id')).toBe('y'.repeat(128));
  });
});

describe('request logging', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startApp(routes);
  });
  afterAll(() => t.close());

  it('writes one line per request with requestId, method, url, status and ms', async () => {
    await fetch(`${t.url}/id?limit=5&token=abc123`, { headers: { 'x-request-id': 'log-1' } });
    const line = await t.logs.waitFor((l) => l['requestId'] === 'log-1' && l['msg'] === 'request completed');
    expect(line).toMatchObject({ level: 'info', service: 'http-test', method: 'GET', status: 200, url: '/id?limit=5&token=[Redacted]' });
    expect(typeof line['ms']).toBe('number');
    expect(t.logs.lines.filter((l) => l['requestId'] === 'log-1' && l['msg'] === 'request completed')).toHaveLength(1);
    expect(t.logs.text()).not.toContain('abc123');
  });

  it('puts the request id on lines logged by handlers through req.log', async () => {
    await fetch(`${t.url}/id`, { headers: { 'x-request-id': 'log-2' } });
    await t.logs.waitFor((l) => l['requestId'] === 'log-2' && l['msg'] === 'inside the handler');
  });

  it('makes req.log once per request, on first use, without a property of its own on the request', async () => {
    expect(await (await fetch(`${t.url}/log-shape`)).json()).toEqual({ own: false, same: true });
  });

  it.each([
    ['the internal credential', 'internal', { 'x-ocg-internal-token': 'anything' }],
    ['a node signature', 'node', { 'x-ocg-node': 'node-address' }],
  ])('logs successful calls carrying %s at debug (internal traffic), their failures still at warn', async (_what, id, headers) => {
    await fetch(`${t.url}/id`, { headers: { ...headers, 'x-request-id': `${id}-ok` } });
    expect(await t.logs.waitFor((l) => l['requestId'] === `${id}-ok` && l['msg'] === 'request completed')).toMatchObject({ level: 'debug', status: 200 });
    await fetch(`${t.url}/missing`, { headers: { ...headers, 'x-request-id': `${id}-404` } });
    expect(await t.logs.waitFor((l) => l['requestId'] === `${id}-404` && typeof l['status'] === 'number')).toMatchObject({ level: 'warn', status: 404 });
  });

  it('logs 4xx request lines at warn', async () => {
    await fetch(`${t.url}/missing`, { headers: { 'x-request-id': 'log-3' } });
    const line = await t.logs.waitFor((l) => l['requestId'] === 'log-3' && typeof l['status'] === 'number');
    expect(line).toMatchObject({ level: 'warn', status: 404 });
  });

  it('never logs an Authorization, Cookie or X-Api-Key value or a password, even when a handler logs them', async () => {
    await fetch(`${t.url}/careless`, {
      method: 'POST',
      headers: { authorization: 'Bearer ocg_live_SECRETKEY', cookie: 'sid=COOKIEVALUE', 'x-api-key': 'APIKEYVALUE', 'content-type': 'application/json', 'x-request-id': 'log-4' },
      body: JSON.stringify({ name: 'me', password: 'hunter2', nested: { apiKey: 'NESTEDKEY', list: [{ token: 'TOKENVALUE' }] } }),
    });
    const line = await t.logs.waitFor((l) => l['requestId'] === 'log-4' && l['msg'] === 'careless');
    expect((line['body'] as { name: string }).name).toBe('me');
    for (const secret of ['SECRETKEY', 'COOKIEVALUE', 'APIKEYVALUE', 'hunter2', 'NESTEDKEY', 'TOKENVALUE']) {
      expect(t.logs.text()).not.toContain(secret);
    }
    expect((line['headers'] as Record<string, string>)['authorization']).toBe('[Redacted]');
  });
});

describe('database errors in log lines', () => {
  it("cuts a failed query's parameters, its row detail and any parameter quoted in its messages", () => {
    const marker = 'PARAM-MARKER-0c2d';
    const driverError = Object.assign(new Error(`invalid input syntax for type integer: "${marker}"`), {
      code: '22P02',
      detail: `Failing row contains (${marker}).`,
      where: `column ${marker}`,
    });
    const err = Object.assign(new Error(driverError.message), {
      name: 'QueryFailedError',
      query: 'SELECT $1::int',
      parameters: [marker, 7],
      driverError,
      detail: driverError.detail,
    });
    const lines: string[] = [];
    const logger = createLogger({ service: 't', destination: { write: (s: string) => void lines.push(s) } as unknown as NodeJS.WritableStream });
    logger.error({ err, wrapped: new Error('outer', { cause: err }) }, 'query failed');
    const text = lines.join('');
    expect(text).toContain('SELECT $1::int');
    expect(text).toContain('22P02');
    expect(text).not.toContain(marker);
  });
});
