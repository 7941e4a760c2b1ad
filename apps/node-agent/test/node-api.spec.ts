/** Every node API route, each auth failure, and the error shapes, against a real job. */
import { createNodeApiClient } from '@ocg/api-client';
import { createAuthHeader, createSigner, generateWallet, type Wallet } from '@ocg/auth';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, serve, signedHeader, startTestAgent, waitFor, type TestAgent } from './support/harness';
import { readNdjson, request, type Answer } from './support/http';

const node = newNodeId('api');
const nodeAddress = generateWallet().address;
let t: TestAgent;
let job: string;
let poster: Wallet;

const TICKER = 'i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 0.1; done';

beforeAll(async () => {
  await prepareEngine();
  t = await startTestAgent(node, { NODE_ADDRESS: nodeAddress });
  // Stage "svc" never becomes ready on its own (the worker runs until stopped), so "later" waits.
  ({ job, wallet: poster } = await t.submit(
    definition([
      runOp('web', serve(8080), { args: { expose: 8080 }, execution: { group: 'svc' } }),
      runOp('worker', TICKER, { execution: { group: 'svc' }, results: { ticks: 'tick (\\d+)' } }),
      runOp('later', 'echo later-ran', { execution: { group: 'later' }, results: { ran: 'later-ran' } }),
    ]),
  ));
  await t.waitOp(job, 'web', (o) => o.endpoints[0]?.status === 'ONLINE');
  await t.waitOp(job, 'worker', 'running');
});

afterAll(async () => {
  if (t && t.agent.executor.running().includes(job)) await t.agent.executor.stopAndWait(job, 'test done');
  await t?.close();
  const left = await leftovers(t.docker, node);
  await removeEverything(t.docker, node);
  expect(left).toEqual([]);
});

function api(method: string, path: string, auth: string | null = signedHeader(poster, nodeAddress, job)): Promise<Answer> {
  return request(`${t.agent.api.url}${path}`, { method, headers: auth === null ? {} : { authorization: auth } });
}

function expectError(answer: Answer, status: number, name: string, message: RegExp): void {
  expect(answer.status).toBe(status);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(body).toMatchObject({ name, status, message: expect.stringMatching(message), requestId: expect.any(String) });
}

describe('authentication', () => {
  it('answers 401 without an Authorization header', async () => {
    expectError(await api('GET', `/job/${job}/ops`, null), 401, 'UnauthorizedError', /Authorization header required/);
  });

  it('answers 401 for an expired header', async () => {
    expectError(await api('GET', `/job/${job}/ops`, signedHeader(poster, nodeAddress, job, Date.now() - 301_000)), 401, 'UnauthorizedError', /expired/);
  });

  it("answers 404 to another poster's header, exactly as for a job this node does not run", async () => {
    const other = generateWallet();
    expectError(await api('GET', `/job/${job}/ops`, signedHeader(other, nodeAddress, job)), 404, 'NotFoundError', new RegExp(`job ${job} is not running on this node`));
  });

  it('refuses a header signed for another node or another job', async () => {
    expectError(await api('GET', `/job/${job}/ops`, signedHeader(poster, generateWallet().address, job)), 401, 'UnauthorizedError', /signs another message/);
    expectError(await api('GET', `/job/${job}/ops`, signedHeader(poster, nodeAddress, generateWallet().address)), 401, 'UnauthorizedError', /signs another message/);
  });

  it("refuses the poster's signature of any other message: another use of sign-message/external, a session's header", async () => {
    for (const message of ['node-api', 'ocg-session', `hello ${job}`, `ocg-node-api:${nodeAddress}`]) {
      const header = createAuthHeader(createSigner(poster.secretKey), message).header;
      expectError(await api('GET', `/job/${job}/ops`, header), 401, 'UnauthorizedError', /signs another message/);
    }
  });

  it('refuses a header older than 5 minutes whatever the configured age', async () => {
    expectError(await api('GET', `/job/${job}/ops`, signedHeader(poster, nodeAddress, job, Date.now() - 300_500)), 401, 'UnauthorizedError', /expired/);
  });

  it('answers 401 for a malformed header', async () => {
    expectError(await api('GET', `/job/${job}/ops`, 'not-a-signed-header'), 401, 'UnauthorizedError', /malformed/);
  });

  it('answers 400 naming the parameter for a job address longer than the document allows, before the header is looked at', async () => {
    const answer = await api('GET', `/job/${'x'.repeat(101)}/ops`, null);
    expectError(answer, 400, 'ValidationError', /\/job: must be at most 100 characters long/);
    expect(JSON.parse(answer.body).errors).toEqual([{ path: '/job', message: 'must be at most 100 characters long' }]);
  });

  it('answers 404 for a job this node does not run, with the error shape', async () => {
    const unknown = generateWallet().address;
    expectError(await api('GET', `/job/${unknown}/ops`, signedHeader(poster, nodeAddress, unknown)), 404, 'NotFoundError', /not running on this node/);
  });
});

describe('reading', () => {
  it('reports op states, groups and endpoints on GET /job/{job}/ops', async () => {
    const answer = await api('GET', `/job/${job}/ops`);
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.body);
    expect(body).toMatchObject({ job, state: 'running', currentStage: 'svc', reason: null });
    expect(body.ops.map((o: { id: string; group: string; state: string }) => [o.id, o.group, o.state])).toEqual([
      ['web', 'svc', 'running'],
      ['worker', 'svc', 'running'],
      ['later', 'later', 'pending'],
    ]);
    expect(body.ops[0].endpoints).toEqual([{ port: 8080, type: 'api', host: `${job}-8080`, url: `https://${job}-8080.node.test`, status: 'ONLINE', ready: true }]);
  });

  it('answers in text/plain when asked, with the same JSON', async () => {
    const answer = await request(`${t.agent.api.url}/job/${job}/ops`, { headers: { authorization: signedHeader(poster, nodeAddress, job), accept: 'text/plain' } });
    expect(answer.headers['content-type']).toContain('text/plain');
    expect(JSON.parse(answer.body).job).toBe(job);
  });

  it('serves the node API through the ingress at the node address host', async () => {
    const answer = await request(`${t.agent.ingress.url}/job/${job}/ops`, {
      host: `${nodeAddress.toLowerCase()}.node.test`,
      headers: { authorization: signedHeader(poster, nodeAddress, job) },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).job).toBe(job);
  });

  it('returns the retained log lines of an op, and the last ones with tail', async () => {
    await waitFor(() => t.agent.executor.logs(job, 'worker').lines().length >= 3, 'a few log lines');
    const answer = await api('GET', `/job/${job}/ops/worker/logs?tail=2&streams=stdout`);
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.body);
    expect(body.lines).toHaveLength(2);
    expect(body.lines[0]).toMatchObject({ stream: 'stdout', text: expect.stringMatching(/^tick \d+$/), seq: expect.any(Number), time: expect.any(String) });
  });

  it('answers 404 for the logs of an op the job does not have', async () => {
    expectError(await api('GET', `/job/${job}/ops/nope/logs`), 404, 'NotFoundError', /has no op nope/);
  });

  it('returns the results captured so far on GET /job/{job}/results', async () => {
    const answer = await api('GET', `/job/${job}/results`);
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.body);
    expect(body).toMatchObject({ job, state: 'running', results: { web: {}, later: { ran: [] } } });
    expect(body.results.worker.ticks.length).toBeGreaterThan(0);
  });
});

describe('the typed client', () => {
  const client = () => createNodeApiClient({ baseUrl: t.agent.api.url, authorization: () => signedHeader(poster, nodeAddress, job) });

  it('reads the ops, results and logs of the job', async () => {
    const ops = await client().GET('/job/{job}/ops', { params: { path: { job } } });
    expect(ops.data).toMatchObject({ job, state: 'running', currentStage: 'svc' });
    expect(ops.data?.ops.map((o) => o.id)).toEqual(['web', 'worker', 'later']);
    const results = await client().GET('/job/{job}/results', { params: { path: { job } } });
    expect(results.data?.results.later).toEqual({ ran: [] });
    const logs = await client().GET('/job/{job}/ops/{opid}/logs', { params: { path: { job, opid: 'worker' }, query: { tail: 1, streams: 'stdout' } } });
    expect(logs.data).toMatchObject({ job, op: 'worker', lines: [{ stream: 'stdout', text: expect.stringMatching(/^tick \d+$/) }] });
  });

  it('answers errors in the one error shape, the header sent on every call', async () => {
    const stop = await client().POST('/job/{job}/group/{group}/stop', { params: { path: { job, group: 'nope' } } });
    expect(stop.response.status).toBe(404);
    expect(stop.error).toMatchObject({ name: 'NotFoundError', message: expect.stringMatching(/has no group nope/) });
    const unsigned = await createNodeApiClient({ baseUrl: t.agent.api.url }).GET('/job/{job}/ops', { params: { path: { job } } });
    expect(unsigned.error).toMatchObject({ name: 'UnauthorizedError', status: 401 });
  });
});

describe('control', () => {
  it('answers 400 with the error shape for an op that is not in the named group', async () => {
    expectError(await api('POST', `/job/${job}/group/svc/operation/later/stop`), 400, 'ValidationError', /op later is not in group svc: it is in group later/);
  });

  it('answers 404 for a group the job does not have', async () => {
    expectError(await api('POST', `/job/${job}/group/nope/stop`), 404, 'NotFoundError', /has no group nope/);
  });

  it('answers 409 when stopping a group that is not running', async () => {
    expectError(await api('POST', `/job/${job}/group/later/stop`), 409, 'ConflictError', /group later is not running \(later pending\)/);
  });

  it('answers 409 when restarting a group whose stage has not started', async () => {
    expectError(await api('POST', `/job/${job}/group/later/restart`), 409, 'ConflictError', /has not started yet/);
  });

  it('streams new log lines with follow=true until the op stops, and stops one op', async () => {
    const follow = readNdjson(`${t.agent.api.url}/job/${job}/ops/worker/logs?follow=true&tail=0`, { authorization: signedHeader(poster, nodeAddress, job) }, () => false);
    await new Promise((r) => setTimeout(r, 500));
    const stop = await api('POST', `/job/${job}/group/svc/operation/worker/stop`);
    expect(stop.status).toBe(200);
    expect(JSON.parse(stop.body)).toMatchObject({ job, ops: [{ id: 'worker' }] });
    const streamed = await follow;
    expect(streamed).toMatchObject({ status: 200, ended: true });
    expect(streamed.lines.filter((l) => /^tick \d+$/.test(l.text)).length).toBeGreaterThan(1);
    expect(await t.waitOp(job, 'worker', 'stopped')).toMatchObject({ reason: 'stopped through the node API' });
  });

  it('answers 409 when stopping an op that is not running', async () => {
    expectError(await api('POST', `/job/${job}/group/svc/operation/worker/stop`), 409, 'ConflictError', /op worker is not running \(it is stopped\)/);
  });

  it('restarts a stopped op in a new container', async () => {
    const answer = await api('POST', `/job/${job}/group/svc/operation/worker/restart`);
    expect(answer.status).toBe(200);
    await t.waitOp(job, 'worker', (o) => o.state === 'running' && o.reason === null);
    expect(
      t.agent.executor
        .logs(job, 'worker')
        .lines()
        .some((l) => l.text === 'restarted through the node API'),
    ).toBe(true);
  });

  it('restarts every op of a group, and the service becomes ready again', async () => {
    const before = t.op(job, 'web').startedAt;
    const answer = await api('POST', `/job/${job}/group/svc/restart`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).ops.map((o: { id: string }) => o.id)).toEqual(['web', 'worker']);
    await t.waitOp(job, 'web', (o) => o.startedAt !== before && o.endpoints[0]?.status === 'ONLINE');
    await t.waitOp(job, 'worker', 'running');
  });

  it('stops every op of a group; the next stage then runs and the job completes', async () => {
    const answer = await api('POST', `/job/${job}/group/svc/stop`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).ops.map((o: { state: string }) => o.state)).toEqual(['stopped', 'stopped']);
    const summary = await t.waitEnded(job);
    expect(summary.state).toBe('completed');
    expect(summary.results.later.ran).toEqual(['later-ran']);
    expect(await leftovers(t.docker, node, job)).toEqual([]);
  });

  it('answers 409 for control of a job that has ended, and still reports its final state', async () => {
    expectError(await api('POST', `/job/${job}/group/svc/restart`), 409, 'ConflictError', /has ended \(completed\)/);
    const answer = await api('GET', `/job/${job}/ops`);
    expect(JSON.parse(answer.body)).toMatchObject({ state: 'completed', currentStage: null });
  });
});
