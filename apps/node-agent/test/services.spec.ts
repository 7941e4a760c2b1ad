/** The spec's "Running several services" patterns, stages, and the port ingress, against the real engine. */
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, serve, startTestAgent, waitFor, type TestAgent } from './support/harness';
import { firstWsMessage, viaIngress } from './support/http';

/** A CGI that answers any WebSocket handshake on / and sends one text frame, "ready". */
const WS_CGI = [
  '#!/bin/sh',
  `accept=$(printf '%s' "\${HTTP_SEC_WEBSOCKET_KEY}258EAFA5-E914-47DA-95CA-C5AB0DC85B11" | sha1sum | cut -d' ' -f1 | xxd -r -p | base64)`,
  `printf 'HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: %s\\r\\n\\r\\n' "$accept"`,
  `printf '\\201\\005ready'`,
  'sleep 1',
].join('\n');

const node = newNodeId('services');
let t: TestAgent;

beforeAll(async () => {
  await prepareEngine();
  t = await startTestAgent(node);
});

afterAll(async () => {
  await t?.close();
  const left = await leftovers(t.docker, node);
  await removeEverything(t.docker, node);
  expect(left).toEqual([]);
});

async function stopAndExpectClean(job: string): Promise<void> {
  await t.agent.executor.stopAndWait(job, 'test done');
  expect(await leftovers(t.docker, node, job)).toEqual([]);
}

it('serves every port of one container whose wrapper script starts several httpd processes', async () => {
  const wrapper = `${serve(8080, 'first')} & ${serve(8081, 'second')} & wait -n; exit $?`;
  const { job } = await t.submit(definition([runOp('multi', wrapper, { args: { expose: [8080, 8081] } })]));
  await t.waitOp(job, 'multi', (o) => o.endpoints.every((e) => e.status === 'ONLINE'));

  expect((await viaIngress(t.agent.ingress.url, job)).body).toBe('first\n');
  expect((await viaIngress(t.agent.ingress.url, `${job}-8081`)).body).toBe('second\n');
  // DNS lowercases host names: the label matches case-insensitively.
  expect((await viaIngress(t.agent.ingress.url, `${job.toLowerCase()}-8080`)).body).toBe('first\n');
  expect(t.op(job, 'multi').endpoints.map((e) => e.host)).toEqual([`${job}-8080`, `${job}-8081`]);
  await stopAndExpectClean(job);
});

it('lets ops of one group reach each other by op id and alias once the dependency is healthy', async () => {
  const check = { type: 'http', path: '/', method: 'GET', expected_status: 200, continuous: false };
  const { job } = await t.submit(
    definition([
      runOp('server', serve(8080, 'from-server'), { args: { aliases: ['api'], expose: [{ port: 8080, health_checks: [check] }] }, execution: { group: 'pair' } }),
      runOp('client', 'echo "by-id: $(wget -qO- http://server:8080/)"; echo "by-alias: $(wget -qO- http://api:8080/)"', {
        execution: { group: 'pair', depends_on: ['server'] },
        results: { byId: 'by-id: (.*)', byAlias: 'by-alias: (.*)' },
      }),
    ]),
  );
  await t.waitOp(job, 'client', 'completed');
  expect(t.agent.executor.results(job).client).toEqual({ byId: ['from-server'], byAlias: ['from-server'] });
  const ready = t.reporter.endpoints.find((e) => e.job === job && e.endpoint.ready)!.at;
  expect(Date.parse(t.op(job, 'client').startedAt!)).toBeGreaterThanOrEqual(ready - 5);
  expect(t.op(job, 'server').state).toBe('running');
  await stopAndExpectClean(job);
});

it('starts the next stage only once the service stage is healthy, and the service keeps running', async () => {
  const check = { type: 'http', path: '/health', method: 'GET', expected_status: 200, continuous: true };
  const { job } = await t.submit(
    definition([
      runOp('db', `sleep 1; ${serve(8080, 'up', '/w').replace('index.html', 'health')}`, {
        args: { expose: [{ port: 8080, health_checks: [check] }] },
        execution: { group: 'infrastructure' },
      }),
      runOp('app', 'wget -qO- http://db:8080/health', { execution: { group: 'application' }, results: { health: '^(up)$' } }),
    ]),
  );
  await t.waitOp(job, 'app', 'completed');
  expect(t.status(job).currentStage).toBe('application');
  expect(t.agent.executor.results(job).app.health).toEqual(['up']);
  expect(t.op(job, 'db')).toMatchObject({ state: 'running', endpoints: [{ status: 'ONLINE', ready: true }] });
  await stopAndExpectClean(job);
});

it('names ports two ops share by op index, and <job>-<port> reaches the first op', async () => {
  const { job } = await t.submit(
    definition([
      runOp('a', serve(8080, 'from-a'), { args: { expose: 8080 }, execution: { group: 'web' } }),
      runOp('b', serve(8080, 'from-b'), { args: { expose: 8080 }, execution: { group: 'web' } }),
    ]),
  );
  await t.waitOp(job, 'b', (o) => o.endpoints[0]?.status === 'ONLINE');
  await t.waitOp(job, 'a', (o) => o.endpoints[0]?.status === 'ONLINE');
  expect(t.op(job, 'a').endpoints[0].host).toBe(`${job}-0-8080`);
  expect(t.op(job, 'b').endpoints[0].host).toBe(`${job}-1-8080`);
  expect((await viaIngress(t.agent.ingress.url, `${job}-1-8080`)).body).toBe('from-b\n');
  expect((await viaIngress(t.agent.ingress.url, `${job}-0-8080`)).body).toBe('from-a\n');
  expect((await viaIngress(t.agent.ingress.url, `${job}-8080`)).body).toBe('from-a\n');
  expect((await viaIngress(t.agent.ingress.url, `${job}-9999`)).status).toBe(404);
  await stopAndExpectClean(job);
});

it('answers the not-found page until the endpoint is ready, then proxies, then 503 while a continuous check fails', async () => {
  const check = { type: 'http', path: '/health', method: 'GET', expected_status: 200, continuous: true };
  const script = 'mkdir -p /w && echo hi > /w/index.html && httpd -p 8080 -h /w && sleep 2 && echo ok > /w/health && sleep 2 && rm /w/health && sleep 600';
  const { job } = await t.submit(definition([runOp('svc', script, { args: { expose: [{ port: 8080, health_checks: [check] }] } })]));
  await t.waitOp(job, 'svc', 'running');

  const early = await viaIngress(t.agent.ingress.url, job);
  expect(early.status).toBe(404);
  expect(early.headers['content-type']).toContain('text/html');
  await waitFor(async () => (await viaIngress(t.agent.ingress.url, job)).body === 'hi\n', 'the endpoint to be proxied');
  await waitFor(async () => (await viaIngress(t.agent.ingress.url, job)).status === 503, 'the failing check to give 503');
  expect(t.op(job, 'svc').endpoints[0]).toMatchObject({ status: 'OFFLINE', ready: true });
  await stopAndExpectClean(job);
});

it('passes http checks with method, headers and body, and websocket checks by the first message, and proxies WebSockets', async () => {
  // The CGI answers 200 only when the check's header and body arrived.
  const echo = [
    '#!/bin/sh',
    'read -r body',
    `if [ "$HTTP_X_PROBE" = yes ] && [ "$body" = hello ]; then printf 'HTTP/1.1 200 OK\r\n\r\nok'; else printf 'HTTP/1.1 500 Bad\r\n\r\nbad'; fi`,
  ].join('\n');
  const script =
    'mkdir -p /w/cgi-bin && printf "%s\\n" "$WS_CGI" > /w/cgi-bin/index.cgi && printf "%s\\n" "$ECHO" > /w/cgi-bin/echo && chmod +x /w/cgi-bin/* && httpd -f -p 8080 -h /w';
  const http = { type: 'http', path: '/cgi-bin/echo', method: 'POST', headers: { 'x-probe': 'yes' }, body: 'hello', expected_status: 200, continuous: false };
  const ws = { type: 'websocket', expected_response: 'ready', continuous: false };
  const { job } = await t.submit(
    definition([runOp('ws', script, { args: { env: { WS_CGI, ECHO: echo }, expose: [{ port: 8080, type: 'websocket', health_checks: [http, ws] }] } })]),
  );
  await t.waitOp(job, 'ws', (o) => o.endpoints[0]?.status === 'ONLINE');
  expect(await firstWsMessage(t.agent.ingress.url, job)).toBe('ready');
  await stopAndExpectClean(job);
});

it("serves a private op's ports only at its secret label, never at names derived from the job address", async () => {
  const label = 'kq7xz2mbw4ra';
  const { job } = await t.submit(
    definition([runOp('site', serve(8080, 'public'), { args: { expose: 8080 } }), runOp('admin', serve(9090, 'private'), { args: { expose: [9090, 9091], private: true } })]),
    { prepare: (d) => ({ ...d, ops: d.ops.map((op) => (op.id === 'admin' && op.type === 'container/run' ? { ...op, args: { ...op.args, private_label: label } } : op)) }) },
  );
  await t.waitOp(job, 'admin', (o) => o.endpoints[0]?.status === 'ONLINE');
  await t.waitOp(job, 'site', (o) => o.endpoints[0]?.status === 'ONLINE');
  expect(t.op(job, 'admin').endpoints.map((e) => e.host)).toEqual([`${job}-${label}-9090`, `${job}-${label}-9091`]);
  // Every name leading to an endpoint, as the control plane hears it (the gateway routes each to a forward): none derived for the private op.
  const lower = job.toLowerCase();
  const hosts = (op: string, port: number) => t.reporter.endpoints.filter((e) => e.job === job && e.op === op && e.endpoint.port === port).at(-1)?.endpoint.hosts;
  expect([hosts('admin', 9090), hosts('admin', 9091)]).toEqual([[`${lower}-${label}`, `${lower}-${label}-9090`], [`${lower}-${label}-9091`]]);
  expect(hosts('site', 8080)).toEqual([lower, `${lower}-8080`, `${lower}-0-8080`]);
  expect((await viaIngress(t.agent.ingress.url, `${job}-${label}-9090`)).body).toBe('private\n');
  expect((await viaIngress(t.agent.ingress.url, `${job}-${label.toUpperCase()}`)).body).toBe('private\n');
  for (const derived of [`${job}-9090`, `${job}-1-9090`, `${job}-9091`]) expect((await viaIngress(t.agent.ingress.url, derived)).status).toBe(404);
  expect((await viaIngress(t.agent.ingress.url, job)).body).toBe('public\n');
  await stopAndExpectClean(job);
});
