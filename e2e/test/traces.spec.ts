/**
 * Traces across the stack (issue 15): with OTEL_TRACES_EXPORTER=otlp pointed
 * at a small OTLP/HTTP receiver, one job post through the gateway is one
 * trace across gateway, deployment-manager, client-manager and host-manager,
 * every span's parent in it; a caller's traceparent is continued and answered
 * back, a malformed one replaced; the services' log lines carry the trace id.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '@ocg/auth';
import {
  BUSYBOX_IMAGE,
  freePorts,
  launchServices,
  startOtlpReceiver,
  testDatabase,
  testRedis,
  waitFor,
  type LaunchedStack,
  type OtlpReceiver,
  type ReceivedSpan,
} from '@ocg/testing';

const SERVICES = ['client-manager', 'host-manager', 'deployment-manager', 'gateway'];
const SERVER = 2;
const CLIENT = 3;
const WELL_FORMED = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[0-3]$/;

const definition = { version: '0.1', type: 'container', ops: [{ type: 'container/run', id: 'main', args: { image: BUSYBOX_IMAGE, cmd: ['true'] } }] };

describe('one trace per request across the stack', () => {
  let receiver: OtlpReceiver;
  let stack: LaunchedStack;
  let gateway: string;
  let userKey: string;
  let market: string;
  let drop: () => Promise<void>;
  const logDir = mkdtempSync(join(tmpdir(), 'ocg-traces-'));

  /** The JSON lines of a service's log file. */
  const logLines = (service: string): Record<string, unknown>[] =>
    readFileSync(join(logDir, `${service}.log`), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  const call = async (method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };

  /** The spans of `traceId` once every service has sent its server span. */
  const traceOf = (traceId: string, services: string[]): Promise<ReceivedSpan[]> =>
    waitFor(
      () => {
        const spans = receiver.trace(traceId);
        return services.every((s) => spans.some((span) => span.service === s && span.kind === SERVER)) ? spans : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: `spans of ${traceId} from ${services.join(', ')}` },
    );

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const db = await testDatabase();
    const redis = await testRedis();
    drop = () => db.drop();
    const adminKey = generateApiKey();
    stack = await launchServices({
      databaseUrl: db.url,
      redisUrl: redis.url,
      ports: await freePorts(SERVICES),
      only: SERVICES,
      // Debug: calls between services are logged at debug.
      logLevel: 'debug',
      logDir,
      env: {
        ADMIN_API_KEY: adminKey,
        INTERNAL_TOKEN: randomBytes(24).toString('hex'),
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      onLine: () => undefined,
    });
    gateway = stack.urls.gateway!;
    const made = await call('POST', '/users', adminKey, { email: `traces-${process.pid}@example.com`, name: 'Traces' });
    if (made.status !== 200) throw new Error(`user not created: ${JSON.stringify(made.body)}`);
    userKey = made.body.apiKey.key;
    const granted = await call('POST', '/credits/grant', adminKey, { userId: made.body.user.id, amount: 1_000_000, reason: 'traces suite' });
    if (granted.status !== 200) throw new Error(`credits not granted: ${JSON.stringify(granted.body)}`);
    const created = await call('POST', '/markets', adminKey, { name: `traces-${process.pid}`, pricePerSecond: 1 });
    if (created.status !== 200) throw new Error(`market not created: ${JSON.stringify(created.body)}`);
    market = created.body.name;
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await drop?.();
    await receiver?.close();
    rmSync(logDir, { recursive: true, force: true });
  });

  it("makes one job post one trace across the four services, continuing the caller's and answering it back", async () => {
    const callerTrace = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const posted = await call('POST', '/jobs', userKey, { definition, market, durationSeconds: 60 }, { traceparent: `00-${callerTrace}-${callerSpan}-01` });
    expect(posted.status).toBe(200);
    expect(WELL_FORMED.exec(posted.headers.get('traceparent') ?? '')?.[1]).toBe(callerTrace);

    const spans = await traceOf(callerTrace, SERVICES);
    const ids = new Set(spans.map((s) => s.spanId));
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    // One root: the gateway's server span, under the caller's span.
    const outside = spans.filter((s) => !ids.has(s.parentSpanId));
    expect(outside.map((s) => [s.service, s.kind, s.name, s.parentSpanId])).toEqual([['gateway', SERVER, 'POST /jobs', callerSpan]]);
    expect(WELL_FORMED.exec(posted.headers.get('traceparent')!)?.[2]).toBe(outside[0].spanId);
    // Every other service's server span hangs under a client span of the service that called it.
    const callerOf = (s: ReceivedSpan) => byId.get(s.parentSpanId)!;
    const servers = spans.filter((s) => s.kind === SERVER && s.service !== 'gateway');
    for (const server of servers) {
      expect({ span: server.name, parentKind: callerOf(server).kind }).toEqual({ span: server.name, parentKind: CLIENT });
      expect(callerOf(server).service).not.toBe(server.service);
    }
    const post = servers.find((s) => s.service === 'deployment-manager' && s.name === 'POST /jobs')!;
    expect(callerOf(post).service).toBe('gateway');
    expect(callerOf(callerOf(post))).toBe(outside[0]);
    for (const service of ['client-manager', 'host-manager']) {
      expect(servers.filter((s) => s.service === service).map((s) => callerOf(s).service)).toContain('deployment-manager');
    }
    expect(spans.filter((s) => s.service === 'deployment-manager').map((s) => s.name)).toEqual(expect.arrayContaining(['job.price', 'job.hold', 'job.record']));
    expect(receiver.rejected).toBe(0);

    // Each service's request line carries the trace id.
    const requestLines = await waitFor(
      () => {
        const found = SERVICES.map((service) => logLines(service).filter((l) => l.traceId === callerTrace && typeof l.status === 'number'));
        return found.every((f) => f.length > 0) ? found.flat() : undefined;
      },
      { timeoutMs: 5000, what: 'request lines with the trace id' },
    );
    expect(requestLines.map((l) => l.service)).toEqual(expect.arrayContaining(SERVICES));
  });

  it('starts a trace where none came, and replaces a malformed traceparent', async () => {
    const fresh = await call('GET', `/markets/${market}`, userKey);
    const malformed = `00-${'A'.repeat(32)}-${'b'.repeat(16)}-01`;
    const replaced = await call('GET', `/markets/${market}`, userKey, undefined, { traceparent: malformed });
    expect([fresh.status, replaced.status]).toEqual([200, 200]);
    const freshTrace = WELL_FORMED.exec(fresh.headers.get('traceparent') ?? '')?.[1];
    const replacedTrace = WELL_FORMED.exec(replaced.headers.get('traceparent') ?? '')?.[1];
    expect(replacedTrace).toBeDefined();
    expect(replacedTrace).not.toBe('a'.repeat(32));
    const spans = await traceOf(freshTrace!, ['gateway', 'host-manager']);
    expect(spans.filter((s) => s.parentSpanId === '').map((s) => [s.service, s.name])).toEqual([['gateway', 'GET /markets/{market}']]);
  });
});
