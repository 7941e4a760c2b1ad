import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { listen, type RunningServer } from '../src';
import { RouteTable } from '../src/route-table';

/** What a handler saw: enough of express's request state to tell two ways through the app apart. */
function seen(req: Request, res: Response, by: string): Record<string, unknown> {
  return {
    by,
    route: req.route ? String((req.route as { path: string }).path) : null,
    params: req.params,
    query: req.query,
    baseUrl: req.baseUrl,
    originalUrl: req.originalUrl,
    url: req.url,
    locals: res.locals,
    hasNext: typeof req.next === 'function',
    app: req.app === res.app,
  };
}

const answer =
  (by: string) =>
  (req: Request, res: Response): void => {
    res.json(seen(req, res, by));
  };

/**
 * An app with each kind of layer the table reads: middleware at `/`, a
 * router of routes only, a middleware mounted on a path, a route with a
 * parameter ahead of a fixed one it matches, routes that call `next` in
 * each way, a 404 middleware and an error handler.
 */
function build(): { app: Express; handled: () => number; walked: () => number } {
  const app = express();
  app.set('query parser', 'simple');
  app.use((req, res, next) => {
    // Pushed, not set: a layer run twice for one request shows in every answer.
    res.locals.trail = [...((res.locals.trail as string[] | undefined) ?? []), 'first'];
    if (req.headers['x-fail'] === 'first') return next(Object.assign(new Error('refused first'), { status: 403 }));
    if (req.headers['x-fail'] === 'throw') throw Object.assign(new Error('thrown first'), { status: 400 });
    next();
  });
  app.use((err: Error, _req: Request, _res: Response, next: NextFunction) => next(err)); // an error handler on the way
  app.use((req, _res, next) => next(req.headers['x-next'] === 'route' ? 'route' : undefined));
  const health = express.Router();
  health.get('/healthz', answer('healthz'));
  health.post('/fixed-too', answer('health router post'));
  app.use(health);
  app.use((req, res, next) => {
    (res.locals.trail as string[]).push('second');
    if (req.headers['x-fail'] === 'second') {
      setImmediate(() => next(new Error('later')));
      return;
    }
    next();
  });
  app.use('/mounted', (req, res) => {
    res.json(seen(req, res, 'mounted'));
  });
  app.get('/items/:id', answer('item'));
  app.get('/items/special', answer('special'));
  app.get('/fixed', answer('get fixed'));
  app.post('/fixed', answer('post fixed'));
  app.get('/fixed-too', answer('get fixed-too'));
  app.get('/fails', (_req, _res, next) => next(Object.assign(new Error('it failed'), { status: 409 })));
  app.get('/throws', () => {
    throw Object.assign(new Error('it threw'), { status: 418 });
  });
  app.get('/passes', (_req, res, next) => {
    (res.locals.trail as string[]).push('passes once');
    next();
  });
  app.get('/passes', answer('passes twice'));
  app.get('/skip', (_req, _res, next) => next('route'), answer('never'));
  app.get('/skip', answer('after skip'));
  app.get('/leaves', (_req, _res, next) => next('router'));
  app.get('/nothing', (_req, _res, next) => next());
  app.get('/later', async (req, res) => {
    await new Promise((r) => setImmediate(r));
    res.status(201).json(seen(req, res, 'later'));
  });
  app.all('/all', answer('all'));
  app.route('/any').all(answer('any'));
  app.use((req: Request, res: Response) => {
    res.status(404).json({ notFound: req.originalUrl, trail: res.locals.trail });
  });
  app.use((err: Error & { status?: number }, req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ error: err.message, trail: res.locals.trail, route: req.route ? String((req.route as { path: string }).path) : null });
  });
  let handled = 0;
  let walked = 0;
  type Handle = (req: http.IncomingMessage, res: http.ServerResponse, next?: NextFunction) => void;
  const own = app as unknown as { handle: Handle; _router: { handle: Handle } };
  const { handle } = own;
  // Every request express takes, from the top or handed over further down (a router of its own, the app's own handle).
  own.handle = function (this: unknown, req, res, next) {
    handled++;
    handle.call(this, req, res, next);
  };
  const router = own._router;
  const walk = router.handle.bind(router);
  // The requests express's router walks from the top of the app's stack.
  router.handle = (req, res, next) => {
    walked++;
    walk(req, res, next);
  };
  return { app, handled: () => handled, walked: () => walked };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function ask(url: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...rest } = res.headers as Record<string, string>;
        resolve({ status: res.statusCode ?? 0, headers: rest, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** express on its own: node's server calling the app. */
async function plain(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const requests: Array<[string, string, Record<string, string>]> = [
  ['GET', '/fixed', {}],
  ['GET', '/fixed?a=1&b=two&a=3', {}],
  ['POST', '/fixed', {}],
  ['HEAD', '/fixed', {}],
  ['OPTIONS', '/fixed', {}],
  ['DELETE', '/fixed', {}],
  ['GET', '/FIXED', {}],
  ['GET', '/fixed/', {}],
  ['GET', '/fixed?', {}],
  ['GET', '/fixed#frag', {}],
  ['GET', '/fixed-too', {}],
  ['POST', '/fixed-too', {}],
  ['GET', '/healthz', {}],
  ['GET', '/items/special', {}],
  ['GET', '/items/7', {}],
  ['GET', '/items/:id', {}],
  ['GET', '/any', {}],
  ['GET', '/fixed', { 'x-next': 'route' }],
  ['GET', '/mounted/x', {}],
  ['GET', '/fails', {}],
  ['GET', '/throws', {}],
  ['GET', '/passes', {}],
  ['GET', '/skip', {}],
  ['GET', '/leaves', {}],
  ['GET', '/nothing', {}],
  ['GET', '/later', {}],
  ['GET', '/all', {}],
  ['GET', '/unknown', {}],
  ['GET', '/fixed', { 'x-fail': 'first' }],
  ['GET', '/fixed', { 'x-fail': 'throw' }],
  ['GET', '/fixed', { 'x-fail': 'second' }],
  ['GET', '/later', { 'x-fail': 'second' }],
];

describe('the route table (routes of fixed paths dispatched without express looking for them)', () => {
  let tableApp: ReturnType<typeof build>;
  let expressApp: ReturnType<typeof build>;
  let table: RunningServer;
  let alone: Awaited<ReturnType<typeof plain>>;
  // Made for each test, so each makes its own table.
  beforeEach(async () => {
    tableApp = build();
    expressApp = build();
    table = await listen(tableApp.app, { host: '127.0.0.1', port: 0 });
    alone = await plain(expressApp.app);
  });
  afterEach(async () => {
    await table.close();
    await alone.close();
  });

  it.each(requests)('%s %s (headers %j) answers exactly as express on its own', async (method, path, headers) => {
    const [mine, theirs] = await Promise.all([ask(table.url, method, path, headers), ask(alone.url, method, path, headers)]);
    expect(mine).toEqual(theirs);
  });

  it('serves the fixed routes it can follow without express, and hands what comes after a route back to it', async () => {
    const before = { handled: tableApp.handled(), walked: tableApp.walked() };
    for (const path of ['/fixed', '/fixed?x=1', '/later']) await ask(table.url, 'GET', path);
    await ask(table.url, 'GET', '/fixed', { 'x-next': 'route' }); // next('route') from a middleware: the next layer, as next()
    expect(tableApp.handled()).toBe(before.handled); // express never saw them
    // /items/special sits behind /items/:id, which express tries first: express's, from the top.
    await ask(table.url, 'GET', '/items/special');
    expect([tableApp.handled() - before.handled, tableApp.walked() - before.walked]).toEqual([1, 1]);
    const passes = { handled: tableApp.handled(), walked: tableApp.walked() };
    // The first /passes route calls next(): the second answers, each layer having run once.
    expect(JSON.parse((await ask(table.url, 'GET', '/passes')).body)).toMatchObject({ by: 'passes twice', locals: { trail: ['first', 'second', 'passes once'] } });
    expect(JSON.parse((await ask(table.url, 'GET', '/fails')).body)).toEqual({ error: 'it failed', trail: ['first', 'second'], route: '/fails' });
    // Both handed over after their route, never walked from the top.
    expect([tableApp.handled() - passes.handled, tableApp.walked() - passes.walked]).toEqual([2, 0]);
    const plainBefore = expressApp.walked();
    await ask(alone.url, 'GET', '/fixed');
    expect(expressApp.walked() - plainBefore).toBe(1);
  });

  it("walks express's stack for every request with routeTable: false", async () => {
    const walked = build();
    const server = await listen(walked.app, { host: '127.0.0.1', port: 0, routeTable: false });
    try {
      await ask(server.url, 'GET', '/fixed', {});
      await ask(server.url, 'POST', '/fixed', {});
      expect(walked.walked()).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('makes its table and hand-overs again when layers are added after the first request', async () => {
    const growing = express();
    growing.get('/x', (_req, _res, next) => next());
    const server = await listen(growing, { host: '127.0.0.1', port: 0 });
    try {
      expect((await ask(server.url, 'GET', '/x', {})).status).toBe(404); // handed over: express's final handler
      growing.get('/y', answer('y'));
      growing.use((_req: Request, res: Response) => {
        res.status(299).json({ late: true });
      });
      expect(await Promise.all(['/x', '/y'].map(async (path) => (await ask(server.url, 'GET', path, {})).status))).toEqual([299, 200]);
      expect(new RouteTable(growing).planned()).toEqual(['GET /x', 'GET /y']);
    } finally {
      await server.close();
    }
  });

  it('plans only what it can prove: fixed paths, no earlier route or router taking them, no middleware on a path of its own ahead', () => {
    const { app } = build();
    const planned = new RouteTable(app).planned();
    expect(planned).toEqual(
      expect.arrayContaining([
        'GET /fixed',
        'POST /fixed',
        'GET /fixed-too',
        'GET /fails',
        'GET /throws',
        'GET /passes',
        'GET /skip',
        'GET /leaves',
        'GET /nothing',
        'GET /later',
        'GET /all',
        'DELETE /all',
      ]),
    );
    // Behind /items/:id, which express tries first; a parameter; the health router's; express's own ways with HEAD and OPTIONS; a route for every method.
    for (const way of ['GET /items/special', 'GET /items/:id', 'POST /fixed-too', 'HEAD /fixed', 'OPTIONS /all', 'HEAD /all', '_ALL /any', 'GET /any'])
      expect(planned).not.toContain(way);
    expect(new RouteTable(express()).planned()).toEqual([]); // no layer yet: no router

    const mountedFirst = express();
    mountedFirst.use('/api', (_req, _res, next) => next());
    mountedFirst.get('/api/x', answer('x'));
    mountedFirst.get('/other', answer('other'));
    expect(new RouteTable(mountedFirst).planned()).toEqual(['GET /other']); // /api/x is behind the mounted middleware

    const busyRouter = express();
    const router = express.Router();
    router.use((_req, _res, next) => next());
    busyRouter.use(router);
    busyRouter.get('/x', answer('x'));
    expect(new RouteTable(busyRouter).planned()).toEqual([]);

    const withParam = express();
    withParam.param('id', (_req, _res, next) => next());
    withParam.get('/x', answer('x'));
    expect(new RouteTable(withParam).planned()).toEqual([]);
  });
});
