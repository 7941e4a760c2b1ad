/** `ocg job get|stop|extend|list` against real services; a FakeNode runs and finishes jobs. */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeApiMessage, verifyAuthHeader } from '@ocg/auth';
import type { GetNodeOpLogsResponse, NodeJobStatus } from '@ocg/contracts';
import { resolve } from 'node:path';
import { ocg, ocgSeeing } from './support/cli';
import { lossyRelay } from './support/lossy-relay';
import { FakeNode } from './support/node';
import { NODE_DOMAIN, call, startStack, type TestStack, type TestUser } from './support/stack';

jest.setTimeout(90_000);

const CREDITS = 50_000_000;
const definition = JSON.parse(readFileSync(resolve(__dirname, 'fixtures/nginx.json'), 'utf8'));
let stack: TestStack;
let market: string;
let node: FakeNode;

const as = (user: TestUser) => ['--gateway', stack.gateway, '--api-key', user.key];
const postJob = (user: TestUser, durationSeconds = 600) => call(stack.gateway, 'POST', '/jobs', user.key, { definition, market, durationSeconds });
const LOCAL_TIME = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`;

beforeAll(async () => {
  stack = await startStack(['client-manager', 'host-manager', 'deployment-manager', 'gateway']);
  const created = await stack.createMarket({ name: 'Manage CPU' });
  market = created.name;
  node = new FakeNode(stack.gateway);
  await node.register(market, created.joinToken);
}, 120_000);
afterAll(() => stack?.stop());

describe('job get', () => {
  let user: TestUser;
  let address: string;
  beforeAll(async () => {
    user = await stack.newUser(CREDITS);
    address = (await postJob(user)).address;
    await node.claim(market);
  });

  it('shows a running job: status, node, wallet, prices, URL, local times and links', async () => {
    const run = await ocg('job', 'get', address, ...as(user));
    expect(run.code).toBe(0);
    expect(run.out).toMatch(new RegExp(`^job +${address}\nstatus +RUNNING\nmarket +\\w+\nnode +\\w+\nwallet +${user.address}\n`));
    expect(run.out).toMatch(/\nprice per second +0\.000100 credits \(100 units\)\nduration +600 s \(10 min\)\ntotal price +0\.060000 credits \(held\)\n/);
    expect(run.out).toMatch(
      new RegExp(
        `\nservice URL +https://${address}.${NODE_DOMAIN}\ncreated +${LOCAL_TIME}\nstarted +${LOCAL_TIME}\nends +${LOCAL_TIME}\njob link +${stack.gateway}/jobs/${address}\n`,
      ),
    );
  });

  it('shows the ops and the captured results once the node finished the job', async () => {
    await node.finish(address, { nginx: { answer: ['42', '43'] } });
    const run = await ocg('job', 'get', address, ...as(user));
    expect(run.out).toMatch(/\nstatus +COMPLETED \(every op completed\)\n/);
    expect(run.out).toMatch(/\nbilled +\d+ s, 0\.\d{6} credits \((open|settled)\)\n/);
    expect(run.out).toMatch(new RegExp(`\nOP +GROUP +STATUS +EXIT +RESTARTS +STARTED +ENDED +REASON\nnginx +\\S+ +completed +0 +0 +${LOCAL_TIME} +${LOCAL_TIME}\n`));
    expect(run.out).toMatch(/\n\nOP +RESULT +VALUES\nnginx +answer +42, 43\n$/);
  });

  it('prints {job, result} with --json, the result as the node stored it', async () => {
    const run = await ocg('job', 'get', address, '--json', ...as(user));
    const { job, result } = JSON.parse(run.out);
    expect(job).toMatchObject({ address, status: 'COMPLETED', resultCid: expect.stringMatching(/^bafkrei/) });
    expect(result).toMatchObject({ job: address, status: 'completed', results: { nginx: { answer: ['42', '43'] } } });
  });

  it("answers 404 for another user's job", async () => {
    const other = await stack.newUser();
    const run = await ocg('job', 'get', address, ...as(other));
    expect(run).toMatchObject({ out: '', code: 1 });
    expect(run.err).toMatch(/^ocg: NotFoundError \(404\): /);
  });
});

describe('job node-header', () => {
  it("makes a header for the job's node API: signed by the user's wallet, naming that node and job, timed", async () => {
    const user = await stack.newUser(CREDITS);
    const queued = (await postJob(user)).address;
    const early = await ocg('job', 'node-header', queued, ...as(user));
    expect(early.code).toBe(1);
    expect(early.err).toContain('no node has claimed it yet');
    await node.claim(market);
    const run = await ocg('job', 'node-header', queued, '--json', ...as(user));
    expect(run.code).toBe(0);
    const made = JSON.parse(run.out);
    expect(made.job).toBe(queued);
    const check = verifyAuthHeader(made.header, user.address, { requireTimestamp: true, expectedMessage: nodeApiMessage(made.node, queued) });
    expect(check).toMatchObject({ ok: true, message: `ocg-node-api:${made.node}:${queued}` });
    const plain = await ocg('job', 'node-header', queued, ...as(user));
    expect(plain.out.trim()).toMatch(new RegExp(`^ocg-node-api:${made.node}:${queued}:\\w+:\\d{13}$`));
  });
});

describe('job ops and logs', () => {
  const seen: { url: string; host?: string; authorization?: string }[] = [];
  let server: http.Server;
  let user: TestUser;
  let address: string;
  let nodeAddress: string;
  let nodeUrl: string;

  /** The node's side, answering as the node API's document says: the CLI's request arrives through the gateway's node host. */
  function nodeApi(req: http.IncomingMessage, res: http.ServerResponse): void {
    seen.push({ url: req.url ?? '', host: req.headers.host, authorization: req.headers.authorization });
    const now = new Date().toISOString();
    const status: NodeJobStatus = {
      job: address,
      state: 'running',
      reason: null,
      startedAt: now,
      deadline: now,
      endedAt: null,
      currentStage: 'nginx',
      ops: [
        {
          id: 'nginx',
          group: 'nginx',
          stage: 0,
          opIndex: 0,
          type: 'container/run',
          state: 'running',
          exitCode: null,
          reason: null,
          restarts: 1,
          startedAt: now,
          endedAt: null,
          endpoints: [{ port: 80, type: 'web', host: `${address}-80`, url: `https://${address}-80.${NODE_DOMAIN}`, status: 'ONLINE', ready: true }],
        },
      ],
    };
    const logs: GetNodeOpLogsResponse = {
      job: address,
      op: 'nginx',
      lastSeq: 8,
      lines: [
        { seq: 7, time: now, stream: 'stdout', text: 'ready' },
        { seq: 8, time: now, stream: 'stderr', text: 'warned' },
      ],
    };
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(req.url?.startsWith(`/job/${address}/ops/nginx/logs`) ? logs : status));
  }

  beforeAll(async () => {
    server = http.createServer(nodeApi);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const created = await stack.createMarket({ name: 'Node API' });
    const apiNode = new FakeNode(stack.gateway);
    await apiNode.register(created.name, created.joinToken, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    user = await stack.newUser(CREDITS);
    address = (await call(stack.gateway, 'POST', '/jobs', user.key, { definition, market: created.name, durationSeconds: 600 })).address;
    await apiNode.claim(created.name);
    nodeAddress = (await call(stack.gateway, 'GET', `/jobs/${address}`, user.key)).node;
    nodeUrl = `http://${nodeAddress.toLowerCase()}.${NODE_DOMAIN}:${new URL(stack.gateway).port}`;
  });
  afterAll(() => new Promise((done) => server?.close(done)));

  it("asks the job's node through the gateway's node host, signing the header for that node and job", async () => {
    const run = await ocg('job', 'ops', address, '--node-url', nodeUrl, ...as(user));
    expect(run.err).toBe('');
    expect(run.out).toMatch(
      new RegExp(
        `^job +${address}\nstate +running\nstage +nginx\n\nOP +GROUP +STATE +EXIT +RESTARTS +ENDPOINTS\nnginx +nginx +running +- +1 +https://${address}-80\\.${NODE_DOMAIN} ONLINE\n$`,
      ),
    );
    const asked = seen.at(-1)!;
    expect(asked).toMatchObject({ url: `/job/${address}/ops`, host: new URL(nodeUrl).host });
    expect(verifyAuthHeader(asked.authorization!, user.address, { requireTimestamp: true, expectedMessage: nodeApiMessage(nodeAddress, address) })).toMatchObject({ ok: true });
  });

  it("prints an op's lines with their time and op, other streams marked, and passes --tail and --streams on", async () => {
    const run = await ocg('job', 'logs', address, 'nginx', '--tail', '2', '--streams', 'stdout,stderr', '--node-url', nodeUrl, ...as(user));
    expect(run.out).toMatch(new RegExp(`^${LOCAL_TIME}\\.\\d{3} nginx \\| ready\n${LOCAL_TIME}\\.\\d{3} nginx \\| \\[stderr\\] warned\n$`));
    expect(seen.at(-1)!.url).toBe(`/job/${address}/ops/nginx/logs?tail=2&streams=stdout%2Cstderr`);
    expect(JSON.parse((await ocg('job', 'logs', address, 'nginx', '--json', '--node-url', nodeUrl, ...as(user))).out)).toMatchObject({
      job: address,
      op: 'nginx',
      lines: [{ seq: 7 }, { seq: 8 }],
    });
  });

  it("finds the node host beside the job's own hosts without --node-url", async () => {
    const run = await ocg('job', 'ops', address, ...as(user));
    expect(run.code).toBe(1);
    expect(run.err).toContain(`cannot reach the node API at https://${nodeAddress.toLowerCase()}.${NODE_DOMAIN}`);
  });
});

describe('job get --watch', () => {
  let own: { market: string; node: FakeNode };
  beforeAll(async () => {
    const created = await stack.createMarket({ name: 'Watch CPU' });
    own = { market: created.name, node: new FakeNode(stack.gateway) };
    await own.node.register(created.name, created.joinToken);
  });
  const postJob = (user: TestUser) => call(stack.gateway, 'POST', '/jobs', user.key, { definition, market: own.market, durationSeconds: 600 });

  /** Claim, a pull, a start with its endpoint up, the end: what a node reports of a job's life. */
  async function runToEnd(job: string): Promise<void> {
    const { node } = own;
    await node.claim(own.market);
    await node.report(job, { ops: [{ id: 'nginx', opIndex: 0, status: 'pending', logTail: [{ stream: 'nodeerr', text: 'pulled image nginx' }] }] });
    await node.report(job, { ops: [{ id: 'nginx', opIndex: 0, status: 'running' }], endpoints: [{ op: 'nginx', port: 80, host: `${job}-80`, ready: true, online: true }] });
    await node.finish(job, { nginx: {} });
  }

  it('prints a line per event until the job ends, then the job as get shows it', async () => {
    const user = await stack.newUser(CREDITS);
    const { address } = await postJob(user);
    // The node's reports start once the watch has its snapshot: a later snapshot would already hold them, not their events.
    let subscribed!: () => void;
    const snapshotShown = new Promise<void>((done) => (subscribed = done));
    const watching = ocgSeeing((r) => r.err.includes('status QUEUED') && subscribed(), 'job', 'get', address, '--watch', ...as(user));
    await snapshotShown;
    await runToEnd(address);
    const run = await watching;
    expect(run.code).toBe(0);
    const lines = run.err.split('\n').map((l) => l.replace(new RegExp(`^${LOCAL_TIME}  `), ''));
    expect(lines).toEqual(
      expect.arrayContaining([
        'status RUNNING',
        'op nginx: pending',
        'op nginx: pulled image nginx',
        'op nginx: running',
        `endpoint https://${address}-80.${NODE_DOMAIN}: up (health checks passing)`,
        'status COMPLETED (every op completed)',
      ]),
    );
    expect(run.out).toMatch(new RegExp(`^job +${address}\n`));
    expect(run.out).toMatch(/\nstatus +COMPLETED \(every op completed\)\n/);
  });

  it('--json prints each event once, in order, also when the stream is cut and resumed with Last-Event-ID', async () => {
    const relay = await lossyRelay(stack.gateway, 'GET', /^\/jobs\/\w+\/events/, { cutAfter: 'event: snapshot' });
    try {
      const user = await stack.newUser(CREDITS);
      const { address } = await postJob(user);
      const watching = ocg('job', 'get', address, '--watch', '--json', '--gateway', relay.url, '--api-key', user.key);
      await relay.cut;
      await runToEnd(address);
      const run = await watching;
      expect(run.code).toBe(0);
      const events = run.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(events.map((e) => `${e.type} ${e.data.status ?? e.data.lines?.[0].text}`)).toEqual([
        'snapshot QUEUED',
        'job RUNNING',
        'op pending',
        'log pulled image nginx',
        'op running',
        'endpoint ONLINE',
        'op completed',
        'job COMPLETED',
      ]);
      expect(relay.lastEventIds).toEqual([undefined, events[0].id]);
    } finally {
      relay.close();
    }
  });
});

describe('job stop and extend', () => {
  it('extends a queued job by whole minutes, holding their price', async () => {
    const user = await stack.newUser(CREDITS);
    const { address } = await postJob(user, 60);
    const run = await ocg('job', 'extend', address, '--minutes', '10', ...as(user));
    expect(run.out).toBe(
      `job          ${address}\nadded        600 s (10 min)\nduration     660 s (11 min)\ntotal price  0.066000 credits (held)\nends         its duration counts from when a node runs it\n`,
    );
    const json = JSON.parse((await ocg('job', 'extend', address, '--minutes', '1', '--json', ...as(user))).out);
    expect(json).toMatchObject({ address, durationSeconds: 720, totalPrice: 72_000 });
    await call(stack.gateway, 'POST', `/jobs/${address}/stop`, user.key);
  });

  it('extends once when the answer is lost and the call is sent again with the same Idempotency-Key', async () => {
    const relay = await lossyRelay(stack.gateway, 'POST', /^\/jobs\/\w+\/extend$/);
    try {
      const user = await stack.newUser(CREDITS);
      const { address } = await postJob(user, 60);
      const run = await ocg('job', 'extend', address, '--minutes', '5', '--json', '--gateway', relay.url, '--api-key', user.key);
      expect(JSON.parse(run.out)).toMatchObject({ address, durationSeconds: 360 });
      expect(relay.keys).toHaveLength(2);
      expect(relay.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(relay.keys[1]).toBe(relay.keys[0]);
      await call(stack.gateway, 'POST', `/jobs/${address}/stop`, user.key);
    } finally {
      relay.close();
    }
  });

  it('stops a job: STOPPED by the poster, billed for the seconds run', async () => {
    const user = await stack.newUser(CREDITS);
    const { address } = await postJob(user);
    await node.claim(market);
    const run = await ocg('job', 'stop', address, ...as(user));
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/\nstatus +STOPPED \(stopped by the poster\)\n/);
    expect(run.out).toMatch(/\nbilled +\d+ s, 0\.\d{6} credits \(settled\)\n/);
    const again = await ocg('job', 'stop', address, '--json', ...as(user));
    expect(again.out.endsWith('}\n')).toBe(true);
    expect(JSON.parse(again.out)).toMatchObject({ address, status: 'STOPPED', settlement: 'settled' });
  });

  it('reports a stop that did not take as an error (exit 1) after asking again, and one answered without a record too', async () => {
    const asked: string[] = [];
    let answer = JSON.stringify({ address: 'J1', status: 'RUNNING' });
    const gateway = http.createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) }).end(answer);
    });
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
      const run = await ocg('job', 'stop', 'J1', '--json', '--gateway', url, '--api-key', 'ocg_x');
      expect(run).toMatchObject({ code: 1, out: '', err: 'ocg: the job J1 did not stop: asked 3 times, it is still RUNNING. See it with ocg job get J1\n' });
      expect(asked).toEqual(Array(3).fill('POST /jobs/J1/stop'));
      answer = '';
      const empty = await ocg('job', 'stop', 'J1', '--json', '--gateway', url, '--api-key', 'ocg_x');
      expect(empty).toMatchObject({ code: 1, out: '' });
      expect(empty.err).toMatch(/did not stop: asked 3 times, it is still unknown/);
    } finally {
      gateway.close();
    }
  });

  it('refuses a whole number of minutes it cannot use, before calling the gateway', async () => {
    const run = await ocg('job', 'extend', 'abc', '--minutes', '0', '--api-key', 'k');
    expect(run.err).toBe('ocg: --minutes must be a whole number of at least 1, got "0"\n');
  });
});

describe('job list', () => {
  let user: TestUser;
  let addresses: string[];
  beforeAll(async () => {
    user = await stack.newUser(CREDITS);
    addresses = [];
    for (let i = 0; i < 3; i++) addresses.unshift((await postJob(user, 60)).address);
  });
  afterAll(async () => {
    for (const address of addresses) await call(stack.gateway, 'POST', `/jobs/${address}/stop`, user.key);
  });

  it('lists a page of the newest jobs, --limit of them, saying there are more', async () => {
    const run = await ocg('job', 'list', '--limit', '2', ...as(user));
    const lines = run.out.trim().split('\n');
    expect(lines[0]).toMatch(/^JOB +STATUS +MARKET +PRICE\/S +DURATION +CREATED$/);
    expect(lines.slice(1, 3).map((l) => l.split(/\s+/)[0])).toEqual(addresses.slice(0, 2));
    expect(lines[1]).toMatch(new RegExp(`^\\w+ +QUEUED +\\w+ +0\\.000100 credits +60 s \\(1 min\\) +${LOCAL_TIME}$`));
    expect(lines[3]).toBe('(more jobs: ocg job list --all)');
  });

  it('follows the cursor through pages of --limit jobs to the end with --all', async () => {
    const run = await ocg('job', 'list', '--all', '--limit', '2', '--json', ...as(user));
    expect(JSON.parse(run.out)).toEqual({ jobs: addresses.map((address) => expect.objectContaining({ address })), nextCursor: null });
  });

  it('prints the page as {jobs, nextCursor} with --json', async () => {
    const listed = JSON.parse((await ocg('job', 'list', '--limit', '2', '--json', ...as(user))).out);
    expect(listed.jobs.map((j: { address: string }) => j.address)).toEqual(addresses.slice(0, 2));
    expect(listed.nextCursor).toEqual(expect.any(String));
  });

  it('says so when there are no jobs', async () => {
    const run = await ocg('job', 'list', ...as(await stack.newUser()));
    expect(run.out).toBe('no jobs yet: post one with ocg job post --file job.json --market <market>\n');
  });
});
