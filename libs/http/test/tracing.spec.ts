import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startOtlpReceiver, waitFor, type OtlpReceiver } from '@ocg/testing';
import { createLogger, createTracing, formatTraceparent, parseTraceparent, parseTracestate, ServiceClient, tracingConfigShape, withSpan, type Tracing } from '../src';
import { LogCapture, startApp, type TestServer } from './support';
import { z } from 'zod';

const CALLER = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const WELL_FORMED = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[0-3]$/;

describe('traceparent and tracestate as the W3C spec reads them', () => {
  it.each([
    ['version 00', CALLER, { traceId: CALLER_TRACE, spanId: '00f067aa0ba902b7', flags: 1 }],
    ['a later version with more fields', `cc-${CALLER.slice(3)}-what-ever`, { traceId: CALLER_TRACE, spanId: '00f067aa0ba902b7', flags: 1 }],
  ])('reads %s', (_what, header, parsed) => {
    expect(parseTraceparent(header)).toMatchObject(parsed);
  });

  it('passes a version 00 header on as it came, and writes any other as version 00 without unknown flags', () => {
    expect(formatTraceparent(parseTraceparent(CALLER)!)).toBe(CALLER);
    expect(formatTraceparent(parseTraceparent(`cc-${CALLER.slice(3, -2)}ff-what-ever`)!)).toBe(`${CALLER.slice(0, -2)}03`);
    expect(formatTraceparent(parseTraceparent(`${CALLER.slice(0, -2)}ff`)!)).toBe(`${CALLER.slice(0, -2)}03`);
  });

  it.each([
    ['upper case', CALLER.toUpperCase()],
    ['version ff', `ff-${CALLER.slice(3)}`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['an all-zero span id', `00-${CALLER_TRACE}-${'0'.repeat(16)}-01`],
    ['version 00 with more', `${CALLER}-extra`],
    ['a later version joined without a dash', `cc-${CALLER.slice(3)}x`],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01'],
    ['nonsense', 'nonsense'],
    ['two headers', [CALLER, CALLER]],
  ])('refuses %s', (_what, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });

  it('keeps a well-formed tracestate, joined, and drops any that is not', () => {
    expect(parseTracestate('rojo=00f067aa0ba902b7, congo=t61rcWkgMzE')).toBe('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE');
    expect(parseTracestate('tenant@vendor=x')).toBe('tenant@vendor=x');
    expect(parseTracestate('rojo=1,rojo=2')).toBeUndefined();
    expect(parseTracestate('Rojo=1')).toBeUndefined();
    expect(parseTracestate('rojo=a,b')).toBeUndefined();
    expect(parseTracestate(`a=${'x'.repeat(256)}`)).toBe(`a=${'x'.repeat(256)}`);
    expect(parseTracestate(`a=${'x'.repeat(257)}`)).toBeUndefined();
    expect(parseTracestate(Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(','))).toBeUndefined();
  });
});

/** A real upstream on 127.0.0.1 that records the trace headers it is sent. */
async function recordingUpstream(): Promise<{ url: string; seen: http.IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const settings = (env: Record<string, string>) => z.object(tracingConfigShape).parse(env);

describe('tracing off (the default)', () => {
  let app: TestServer;
  let up: Awaited<ReturnType<typeof recordingUpstream>>;
  beforeAll(async () => {
    up = await recordingUpstream();
    const client = new ServiceClient({ service: 'upstream', baseUrl: up.url });
    app = await startApp((a) =>
      a.get('/outer', (req, res, next) => {
        req.log.info('inside');
        client.send({ path: '/inner' }).then((b) => res.json(b), next);
      }),
    );
  });
  afterAll(async () => {
    await app.close();
    await up.close();
  });

  it('creates nothing of the SDK', () => {
    expect(createTracing({ service: 's', settings: settings({}), logger: createLogger({ service: 's', level: 'silent' }) }).recording).toBe(false);
  });

  it("carries the caller's trace to the next hop unchanged and puts its id on every log line of the request", async () => {
    await fetch(`${app.url}/outer`, { headers: { 'x-request-id': 'tr-1', traceparent: CALLER, tracestate: 'rojo=1' } });
    expect(up.seen.at(-1)).toMatchObject({ traceparent: CALLER, tracestate: 'rojo=1' });
    expect(await app.logs.waitFor((l) => l['requestId'] === 'tr-1' && l['msg'] === 'inside')).toMatchObject({ traceId: CALLER_TRACE });
    expect(await app.logs.waitFor((l) => l['requestId'] === 'tr-1' && l['msg'] === 'request completed')).toMatchObject({ traceId: CALLER_TRACE });
  });

  it('starts a trace when none came, or when the one that came is malformed (its tracestate dropped with it)', async () => {
    await fetch(`${app.url}/outer`, { headers: { 'x-request-id': 'tr-2' } });
    await fetch(`${app.url}/outer`, { headers: { 'x-request-id': 'tr-3', traceparent: CALLER.toUpperCase(), tracestate: 'rojo=1' } });
    const [fresh, replaced] = up.seen.slice(-2);
    for (const headers of [fresh, replaced]) expect(headers.traceparent).toMatch(WELL_FORMED);
    expect(replaced.traceparent).not.toContain(CALLER_TRACE);
    expect(replaced.tracestate).toBeUndefined();
    const line = await app.logs.waitFor((l) => l['requestId'] === 'tr-2' && l['msg'] === 'request completed');
    expect(line['traceId']).toBe(WELL_FORMED.exec(String(fresh.traceparent))![1]);
  });

  it('starts a trace per call made outside any request', async () => {
    const client = new ServiceClient({ service: 'upstream', baseUrl: up.url });
    await client.request({ path: '/a' });
    await client.request({ path: '/b' });
    const [a, b] = up.seen.slice(-2).map((h) => WELL_FORMED.exec(String(h.traceparent))?.[1]);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(a).not.toBe(b);
  });
});

describe('tracing on', () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  let app: TestServer;
  let up: Awaited<ReturnType<typeof recordingUpstream>>;
  const logs = new LogCapture();
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    up = await recordingUpstream();
    const logger = createLogger({ service: 'traced', level: 'warn', destination: logs.stream });
    tracing = createTracing({
      service: 'traced',
      logger,
      settings: settings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' }),
    });
    const client = new ServiceClient({ service: 'upstream', baseUrl: up.url });
    app = await startApp(
      (a) => {
        a.get('/jobs/:job', (_req, res, next) => {
          withSpan('look up', () => client.send({ path: '/inner' }))
            .then((b) => res.json(b))
            .catch(next);
        });
        a.get('/boom', () => {
          throw new Error('boom');
        });
      },
      { tracing },
    );
  });
  afterAll(async () => {
    await app.close();
    await tracing.shutdown();
    await up.close();
    await receiver.close();
  });

  it("records a server span named by the route as a child of the caller's span, and the client span of a call inside it", async () => {
    const res = await fetch(`${app.url}/jobs/abc`, { headers: { traceparent: CALLER } });
    expect(res.status).toBe(200);
    const spans = await waitFor(() => (receiver.trace(CALLER_TRACE).length >= 3 ? receiver.trace(CALLER_TRACE) : undefined), { timeoutMs: 5000, what: 'three spans' });
    const server = spans.find((s) => s.kind === 2)!;
    const domain = spans.find((s) => s.kind === 1)!;
    const client = spans.find((s) => s.kind === 3)!;
    expect(server).toMatchObject({ service: 'traced', name: 'GET /jobs/{job}', parentSpanId: '00f067aa0ba902b7', statusCode: 0 });
    expect(server.attributes).toMatchObject({ 'http.route': '/jobs/{job}', 'http.response.status_code': 200 });
    expect(domain).toMatchObject({ name: 'look up', parentSpanId: server.spanId });
    expect(client).toMatchObject({ name: 'GET upstream', parentSpanId: domain.spanId });
    // The upstream was told the client span as its parent.
    expect(up.seen.at(-1)!.traceparent).toBe(`00-${CALLER_TRACE}-${client.spanId}-01`);
  });

  it('marks a 5xx answer as an error', async () => {
    const res = await fetch(`${app.url}/boom`, { headers: { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' } });
    expect(res.status).toBe(500);
    const [server] = await waitFor(() => (receiver.trace('11111111111111111111111111111111').length ? receiver.trace('11111111111111111111111111111111') : undefined), {
      timeoutMs: 5000,
      what: 'the span',
    });
    expect(server).toMatchObject({ name: 'GET /boom', statusCode: 2 });
  });

  it('records a call made outside any request as the root of its own trace', async () => {
    const client = new ServiceClient({ service: 'upstream', baseUrl: up.url, tracing });
    await client.request({ path: '/timer' });
    const traceId = WELL_FORMED.exec(String(up.seen.at(-1)!.traceparent))![1];
    const [root] = await waitFor(() => (receiver.trace(traceId).length ? receiver.trace(traceId) : undefined), { timeoutMs: 5000, what: 'the root span' });
    expect(root).toMatchObject({ name: 'GET upstream', kind: 3, parentSpanId: '' });
    expect(receiver.rejected).toBe(0);
  });
});
