import http from 'node:http';
import express from 'express';
import { listen } from '../src';

/** A plain keep-alive GET with node:http, so sockets can be watched directly. */
function get(url: string, agent: http.Agent): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
      })
      .on('error', reject);
  });
}

describe('listen', () => {
  it('binds port 0 to a free port and reports the url', async () => {
    const server = await listen((_req, res) => res.end('hi'), { host: '127.0.0.1', port: 0 });
    try {
      expect(server.port).toBeGreaterThan(0);
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect(await (await fetch(server.url)).text()).toBe('hi');
    } finally {
      await server.close();
    }
  });

  it('rejects when the port is taken', async () => {
    const first = await listen((_req, res) => res.end(), { host: '127.0.0.1', port: 0 });
    try {
      await expect(listen((_req, res) => res.end(), { host: '127.0.0.1', port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });

  it('closes at once with only idle keep-alive connections open', async () => {
    const server = await listen((_req, res) => res.end('ok'), { host: '127.0.0.1', port: 0 });
    const agent = new http.Agent({ keepAlive: true });
    await get(server.url, agent);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1000);
    agent.destroy();
  });

  it('finishes in-flight requests on close, then refuses new connections', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const inFlight = new Promise<void>((r) => (arrived = r));
    const server = await listen(
      (_req, res) => {
        arrived();
        void gate.then(() => res.end('done'));
      },
      { host: '127.0.0.1', port: 0 },
    );
    const agent = new http.Agent({ keepAlive: true });
    const pending = get(server.url, agent);
    await inFlight;
    const closed = server.close();
    await new Promise((r) => setTimeout(r, 50));
    await expect(fetch(server.url)).rejects.toThrow();
    release();
    expect(await pending).toMatchObject({ status: 200, body: 'done', connection: 'close' });
    await closed;
    agent.destroy();
  });

  it('tells every request still in flight at close to hang up, whichever ended before', async () => {
    const releases = new Map<string, () => void>();
    const server = await listen((req, res) => void releases.set(req.url ?? '', () => res.end(req.url)), { host: '127.0.0.1', port: 0 });
    const agent = new http.Agent({ keepAlive: true });
    const paths = ['/a', '/b', '/c', '/d'];
    const pending = paths.map((path) => get(`${server.url}${path}`, agent));
    while (releases.size < paths.length) await new Promise((r) => setTimeout(r, 10));
    releases.get('/b')?.();
    releases.get('/d')?.();
    expect(await Promise.all([pending[1], pending[3]])).toEqual([
      { status: 200, body: '/b', connection: 'keep-alive' },
      { status: 200, body: '/d', connection: 'keep-alive' },
    ]);
    const closed = server.close();
    releases.get('/a')?.();
    releases.get('/c')?.();
    expect(await Promise.all([pending[0], pending[2]])).toEqual([
      { status: 200, body: '/a', connection: 'close' },
      { status: 200, body: '/c', connection: 'close' },
    ]);
    await closed;
    agent.destroy();
  });

  it('destroys requests still running after the shutdown timeout', async () => {
    const server = await listen(() => undefined, { host: '127.0.0.1', port: 0, shutdownTimeoutMs: 100 });
    const agent = new http.Agent({ keepAlive: true });
    const pending = get(server.url, agent).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(String(await pending)).toMatch(/socket hang up|ECONNRESET/);
    agent.destroy();
  });

  it("makes an express app's requests and responses with the app's prototypes, and express serves them as ever", async () => {
    const app = express();
    app.get('/who', (req, res) => {
      res.json({ path: req.path, secure: req.secure, sameRes: req.res === res });
    });
    const server = await listen(app, { host: '127.0.0.1', port: 0 });
    const made: boolean[] = [];
    // Before the app: what node made, before express's first layer ran.
    server.server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      made.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response, req instanceof http.IncomingMessage);
    });
    try {
      const res = await fetch(`${server.url}/who?x=1`);
      expect(await res.json()).toEqual({ path: '/who', secure: false, sameRes: true });
      expect(made).toEqual([true, true]);
    } finally {
      await server.close();
    }
  });
});
