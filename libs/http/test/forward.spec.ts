/** The proxy core: a caller that goes away is not an upstream failure; an upstream that cannot be reached is. */
import http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { forward, listen, upstreamAgent, type RunningServer } from '../src';

describe('forward', () => {
  let upstream: RunningServer;
  let proxy: RunningServer;
  let target: URL;
  const failures: Array<{ code?: string; timedOut: boolean }> = [];
  const upstreamOpened: string[] = [];
  const upstreamClosed: string[] = [];
  const dispatcher = upstreamAgent({ connections: 16 });

  beforeAll(async () => {
    // Never answers: the request stays open until one side gives up.
    upstream = await listen(
      (req, res) => {
        upstreamOpened.push(req.url ?? '');
        res.on('close', () => upstreamClosed.push(req.url ?? ''));
      },
      { host: '127.0.0.1', port: 0 },
    );
    proxy = await listen(
      (req, res) =>
        forward(req, res, { url: target, dispatcher }, 'rid-1', 5000, (err, timedOut) => {
          failures.push({ code: err.code, timedOut });
          res.writeHead(503).end();
        }),
      { host: '127.0.0.1', port: 0 },
    );
  });
  afterAll(async () => {
    await dispatcher.destroy();
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
    // The caller leaves once the upstream has the request (the first one through a new pool waits for its connection).
    for (let i = 0; i < 250 && !upstreamOpened.includes('/long-poll'); i++) await delay(20);
    req.destroy();
    for (let i = 0; i < 50 && !upstreamClosed.includes('/long-poll'); i++) await delay(20);
    expect(upstreamClosed).toContain('/long-poll');
    await delay(100);
    expect(failures).toEqual([]);
  });

  it('cuts an answer whose body goes silent past the timeout (an event stream aside)', async () => {
    const silent = await listen(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first');
      },
      { host: '127.0.0.1', port: 0 },
    );
    const quick = await listen((req, res) => forward(req, res, { url: new URL(silent.url), dispatcher }, 'rid-3', 200, () => res.writeHead(504).end()), {
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const res = await fetch(`${quick.url}/stalls`);
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
    } finally {
      await quick.close();
      await silent.close();
    }
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
    const quick = await listen((req, res) => forward(req, res, { url: new URL(events.url), dispatcher }, 'rid-2', 200, () => res.writeHead(504).end()), {
      host: '127.0.0.1',
      port: 0,
    });
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

  it('sends nothing upstream for a caller that leaves before its small body is in (wholeBodyLimit)', async () => {
    const whole = await listen((req, res) => forward(req, res, { url: target, dispatcher, wholeBodyLimit: 1024 }, 'rid-4', 5000, () => res.writeHead(503).end()), {
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const req = http.request(`${whole.url}/half-body`, { method: 'POST', headers: { 'content-length': '10' } });
      req.on('error', () => undefined);
      req.write('hello');
      await delay(200);
      req.destroy();
      await delay(100);
      expect(upstreamOpened).not.toContain('/half-body');
      expect(failures).toEqual([]);
    } finally {
      await whole.close();
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

describe('forward to an upstream that answers', () => {
  let upstream: RunningServer;
  let proxy: RunningServer;
  const dispatcher = upstreamAgent({ connections: 4 });

  beforeAll(async () => {
    upstream = await listen(
      (req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        const answer = () => res.end(JSON.stringify({ expect: req.headers.expect ?? null, body }));
        req.on('end', () => (req.url === '/hints' ? res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' }, answer) : answer()));
      },
      { host: '127.0.0.1', port: 0 },
    );
    const target = new URL(upstream.url);
    proxy = await listen((req, res) => forward(req, res, { url: target, dispatcher }, 'rid-2', 5000, () => res.writeHead(503).end()), { host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await dispatcher.destroy();
    await proxy.close();
    await upstream.close();
  });

  it('passes on a body sent after 100 Continue, without the Expect the proxy answered itself', async () => {
    const answer = await new Promise<{ status?: number; text: string }>((resolve, reject) => {
      const req = http.request(`${proxy.url}/upload`, { method: 'POST', headers: { expect: '100-continue', 'content-length': '5' } });
      req.on('continue', () => req.end('hello'));
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      });
      req.on('error', reject);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ expect: null, body: 'hello' });
  });

  it('answers with the final answer when the upstream sends an informational one first', async () => {
    const res = await fetch(`${proxy.url}/hints`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ expect: null, body: 'x' });
  });

  it('sends a body within wholeBodyLimit in one piece, with its length, however the caller sent it', async () => {
    const counting = await listen(
      (req, res) => {
        const chunks: string[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
        req.on('end', () => res.end(JSON.stringify({ length: req.headers['content-length'], chunks })));
      },
      { host: '127.0.0.1', port: 0 },
    );
    const target = new URL(counting.url);
    const whole = await listen((req, res) => forward(req, res, { url: target, dispatcher, wholeBodyLimit: 1024 }, 'rid-5', 5000, () => res.writeHead(503).end()), {
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const req = http.request(`${whole.url}/pieces`, { method: 'POST', headers: { 'content-length': '10' } });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.write('hello');
        setTimeout(() => req.end('world'), 100);
      });
      expect(JSON.parse(answer)).toEqual({ length: '10', chunks: ['helloworld'] });
    } finally {
      await whole.close();
      await counting.close();
    }
  });

  it("answers with the edge's traceparent given in the target, the upstream's dropped, and sets it before a failure is answered", async () => {
    const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const theirs = await listen((_req, res) => void res.writeHead(200, { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' }).end('ok'), {
      host: '127.0.0.1',
      port: 0,
    });
    const down = await listen((_req, res) => void res.end(), { host: '127.0.0.1', port: 0 });
    await down.close();
    const edge = await listen(
      (req, res) => {
        const url = new URL(req.url === '/down' ? down.url : theirs.url);
        forward(req, res, { url, dispatcher, traceparent: own }, 'rid-3', 5000, () => res.writeHead(503).end());
      },
      { host: '127.0.0.1', port: 0 },
    );
    try {
      const answered = await fetch(`${edge.url}/up`);
      expect([answered.status, answered.headers.get('traceparent'), await answered.text()]).toEqual([200, own, 'ok']);
      const failed = await fetch(`${edge.url}/down`);
      expect([failed.status, failed.headers.get('traceparent')]).toEqual([503, own]);
    } finally {
      await edge.close();
      await theirs.close();
    }
  });
});
