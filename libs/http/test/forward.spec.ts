/** The proxy core: a caller that goes away is not an upstream failure; an upstream that cannot be reached is. */
import http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { forward, listen, type RunningServer } from '../src';

describe('forward', () => {
  let upstream: RunningServer;
  let proxy: RunningServer;
  let target: URL;
  const failures: Array<{ code?: string; timedOut: boolean }> = [];
  const upstreamClosed: string[] = [];
  const agent = new http.Agent({ keepAlive: true });

  beforeAll(async () => {
    // Never answers: the request stays open until one side gives up.
    upstream = await listen((req, res) => void res.on('close', () => upstreamClosed.push(req.url ?? '')), { host: '127.0.0.1', port: 0 });
    proxy = await listen(
      (req, res) =>
        forward(req, res, { url: target, agent }, 'rid-1', 5000, (err, timedOut) => {
          failures.push({ code: err.code, timedOut });
          res.writeHead(503).end();
        }),
      { host: '127.0.0.1', port: 0 },
    );
  });
  afterAll(async () => {
    agent.destroy();
    await proxy.close();
    await upstream.close();
  });
  beforeEach(() => {
    failures.length = 0;
    target = new URL(upstream.url);
  });

  it('ends the upstream request quietly when the caller goes away first', async () => {
    const req = http.request(`${proxy.url}/long-poll`, { method: 'POST' });
    req.on('error', () => undefined);
    req.end('{}');
    await delay(200);
    req.destroy();
    for (let i = 0; i < 50 && !upstreamClosed.includes('/long-poll'); i++) await delay(20);
    expect(upstreamClosed).toContain('/long-poll');
    await delay(100);
    expect(failures).toEqual([]);
  });

  it('streams an event stream quieter than the timeout to its end, each event as it comes', async () => {
    const events = await listen(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        setTimeout(() => res.end('data: last\n\n'), 600);
      },
      { host: '127.0.0.1', port: 0 },
    );
    const quick = await listen((req, res) => forward(req, res, { url: new URL(events.url), agent }, 'rid-2', 200, () => res.writeHead(504).end()), { host: '127.0.0.1', port: 0 });
    try {
      const res = await fetch(`${quick.url}/events`);
      const reader = res.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
      let rest = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
      expect(rest).toBe('data: last\n\n');
    } finally {
      await quick.close();
      await events.close();
    }
  });

  it('reports an upstream that cannot be reached', async () => {
    const closed = await listen((_req, res) => void res.end(), { host: '127.0.0.1', port: 0 });
    target = new URL(closed.url);
    await closed.close();
    const res = await fetch(`${proxy.url}/x`);
    expect(res.status).toBe(503);
    expect(failures).toEqual([{ code: 'ECONNREFUSED', timedOut: false }]);
  });
});
