/**
 * `ocg job post` against real services (managers, deployment-manager,
 * gateway). Nodes are FakeNodes: real signed claims through the gateway, no
 * Docker; the endpoint a job serves is a local HTTPS server standing in for
 * the node's ingress, reached with --connect-to and trusted with --ca.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureLocalTls, freePort } from '@ocg/testing';
import { ocg, type Run } from './support/cli';
import { lossyRelay } from './support/lossy-relay';
import { FakeNode } from './support/node';
import { NODE_DOMAIN, call, startStack, type TestStack, type TestUser } from './support/stack';

jest.setTimeout(90_000);

const CREDITS = 50_000_000;
const nginx = resolve(__dirname, 'fixtures/nginx.json');
let stack: TestStack;
let idle: string;
let dir: string;

const as = (user: TestUser) => ['--gateway', stack.gateway, '--api-key', user.key];
const quick = ['--timeout-wait', '1', '--poll-interval', '200'];
const post = (user: TestUser, market: string, ...args: string[]) => ocg('job', 'post', '--file', nginx, '--market', market, ...args, ...as(user));
const jobsOf = async (user: TestUser) => (await call(stack.gateway, 'GET', '/jobs', user.key)).jobs;

/** A market with one FakeNode registered in it. */
async function servedMarket(): Promise<{ name: string; node: FakeNode }> {
  const market = await stack.createMarket();
  const node = new FakeNode(stack.gateway);
  await node.register(market.name, market.joinToken);
  return { name: market.name, node };
}

beforeAll(async () => {
  stack = await startStack(['client-manager', 'host-manager', 'deployment-manager', 'gateway']);
  idle = (await stack.createMarket({ name: 'Idle CPU' })).name;
  dir = mkdtempSync(join(tmpdir(), 'job-post-'));
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('job post to a market without nodes', () => {
  let user: TestUser;
  let run: Run;
  beforeAll(async () => {
    user = await stack.newUser(CREDITS);
    run = await post(user, idle, ...quick);
  });

  it('prints network, wallet, balances, prices, service URL and links, one aligned line each', () => {
    const [job] = /^job {15}(\w+)$/m.exec(run.out)!.slice(1);
    const origin = stack.gateway;
    expect(run.out.split('\n')).toEqual([
      `network           custom (${origin})`,
      `wallet            ${user.address}`,
      'balances          49.280000 credits available, 0.720000 credits held',
      'price per second  0.000100 credits (100 units)',
      'total price       0.720000 credits for 7200 s (2 h), held from the balance',
      `service URL       https://${job}.${NODE_DOMAIN}`,
      `job               ${job}`,
      `job link          ${origin}/jobs/${job}`,
      expect.stringMatching(new RegExp(`^market link       ${origin}/markets/\\w+$`)),
      expect.stringMatching(new RegExp(`^definition        ${origin}/cas/bafkrei\\w+$`)),
      '',
    ]);
  });

  it('shows progress while waiting, then gives up cleanly with exit 1 and leaves the job queued', async () => {
    expect(run.err).toMatch(/^waiting for a node of the market to run the job \(QUEUED\), 0 s\n/);
    expect(run.err).toMatch(
      /ocg: the job is still QUEUED after 1 s: no node of the market has claimed it.\nIt stays queued, its price held, until a node claims it: see it with ocg job get \w+, or stop it with ocg job stop \w+\n$/,
    );
    expect(run.code).toBe(1);
    expect((await jobsOf(user)).map((j: { status: string }) => j.status)).toEqual(['QUEUED']);
  });

  it('uploaded the file as it is: the definition link reads back its bytes', async () => {
    const link = /^definition +(\S+)$/m.exec(run.out)![1];
    const res = await fetch(link, { headers: { authorization: `Bearer ${user.key}` } });
    expect(await res.text()).toBe(readFileSync(nginx, 'utf8'));
  });
});

describe('job post', () => {
  it('holds price per second × --timeout minutes, and --json prints only the job record even when the wait gives up', async () => {
    const user = await stack.newUser(CREDITS);
    const run = await post(user, idle, '--timeout', '30', '--json', ...quick);
    expect(run.code).toBe(1);
    const job = JSON.parse(run.out);
    expect(job).toMatchObject({ status: 'QUEUED', poster: user.address, pricePerSecond: 100, durationSeconds: 1800, totalPrice: 180_000 });
    expect(run.err).toMatch(/still QUEUED after 1 s/);
  });

  it('refuses a short balance with the service error naming balance and required amount, and posts nothing', async () => {
    const user = await stack.newUser(500_000);
    const run = await post(user, idle, ...quick);
    expect(run).toMatchObject({ out: '', code: 1 });
    expect(run.err).toBe('ocg: InsufficientBalanceError (402): Insufficient balance: balance 0.500000 credits is less than the 0.720000 credits required\n');
    expect(await jobsOf(user)).toEqual([]);
  });

  it('names a market that does not exist', async () => {
    const user = await stack.newUser(CREDITS);
    const run = await post(user, 'Nowhere 9000', ...quick);
    expect(run).toMatchObject({ out: '', code: 1 });
    expect(run.err).toBe('ocg: NotFoundError (404): No market with the address or name "Nowhere 9000"\n');
  });

  it('refuses an invalid definition with each field path before calling the gateway', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ version: '0.1', type: 'container', ops: [{ type: 'container/run', id: 'a', args: { image: 'x', gpu: 'yes' } }] }));
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await ocg('job', 'post', '--file', file, '--market', idle, '--gateway', closed, '--api-key', 'ocg_x');
    expect(run).toMatchObject({ out: '', code: 1 });
    expect(run.err).toBe(`ocg: invalid job definition in ${file}; nothing was posted:\n  error /ops/0/args/gpu: must be a boolean\n`);
  });

  it('refuses a missing file and invalid JSON, saying where', async () => {
    const missing = join(dir, 'missing.json');
    expect((await ocg('job', 'post', '--file', missing, '--market', idle, '--api-key', 'k')).err).toBe(`ocg: cannot read ${missing}: no such file\nnothing was posted\n`);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{\n  "ops": [}\n}');
    const run = await ocg('job', 'post', '--file', broken, '--market', idle, '--api-key', 'k');
    expect(run).toMatchObject({ code: 1, err: `ocg: invalid JSON in ${broken} at line 2, column 11: Unexpected token '}'\nnothing was posted\n` });
  });

  it('says when the gateway cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await ocg('job', 'post', '--file', nginx, '--market', idle, '--gateway', closed, '--api-key', 'ocg_x');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(new RegExp(`^ocg: cannot reach the gateway at ${closed}: ECONNREFUSED\\n`));
  });

  it('posts one job when the answer to the post is lost and the call is sent again with the same Idempotency-Key', async () => {
    const relay = await lossyRelay(stack.gateway, 'POST', /^\/jobs$/);
    try {
      const user = await stack.newUser(CREDITS);
      const run = await ocg('job', 'post', '--file', nginx, '--market', idle, '--json', ...quick, '--gateway', relay.url, '--api-key', user.key);
      expect(JSON.parse(run.out)).toMatchObject({ status: 'QUEUED' });
      expect(relay.keys).toHaveLength(2);
      expect(relay.keys[1]).toBe(relay.keys[0]);
      expect(await jobsOf(user)).toHaveLength(1);
    } finally {
      relay.close();
    }
  });

  it('fails with the reason when the job is stopped while it waits for a node', async () => {
    const user = await stack.newUser(CREDITS);
    const running = post(user, idle, '--timeout-wait', '30', '--poll-interval', '200');
    const [job] = await waitForJobs(user);
    await call(stack.gateway, 'POST', `/jobs/${job.address}/stop`, user.key);
    const run = await running;
    expect(run.code).toBe(1);
    expect(run.err).toMatch(`ocg: the job was stopped: stopped by the poster (ocg job get ${job.address})\n`);
  });
});

describe('job post to a market with a node', () => {
  it('prints status RUNNING once a node claims the job', async () => {
    const user = await stack.newUser(CREDITS);
    const { name, node } = await servedMarket();
    const running = post(user, name, '--timeout-wait', '30', '--poll-interval', '200');
    const claimed = await node.claim(name);
    const run = await running;
    expect(run.code).toBe(0);
    expect(run.out).toMatch(new RegExp(`\njob {15}${claimed.job}\n[^]*\nstatus {12}RUNNING\n$`));
    expect(claimed.poster).toBe(user.address);
  });

  it('prints only the running job record with --json', async () => {
    const user = await stack.newUser(CREDITS);
    const { name, node } = await servedMarket();
    const running = post(user, name, '--json', '--timeout-wait', '30', '--poll-interval', '200');
    await node.claim(name);
    const run = await running;
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ status: 'RUNNING', url: expect.stringMatching(/^https:\/\//), links: { job: expect.any(String) } });
  });

  it('--wait waits until the service URL answers something other than 404, over TLS from a local CA', async () => {
    const tls = await ensureLocalTls({ dir: join(dir, 'tls'), dnsNames: [`*.${NODE_DOMAIN}`] });
    const asked: string[] = [];
    const ingress = https.createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, (req, res) => {
      asked.push(req.headers.host ?? '');
      res.writeHead(asked.length < 3 ? 404 : 200).end();
    });
    await new Promise<void>((r) => ingress.listen(0, '127.0.0.1', r));
    try {
      const user = await stack.newUser(CREDITS);
      const { name, node } = await servedMarket();
      const via = `127.0.0.1:${(ingress.address() as AddressInfo).port}`;
      const running = post(user, name, '--wait', '--ca', tls.caCertFile, '--connect-to', via, '--timeout-wait', '30', '--poll-interval', '200');
      const { job } = await node.claim(name);
      const run = await running;
      expect(run.code).toBe(0);
      expect(run.out).toMatch(/\nstatus {12}RUNNING\nendpoint {10}answering \(HTTP 200 after \d+ s\)\n$/);
      expect(run.err).toMatch(`waiting for https://${job}.${NODE_DOMAIN} to answer (HTTP 404), 0 s\n`);
      expect(asked).toEqual(Array(3).fill(`${job.toLowerCase()}.${NODE_DOMAIN}`));
    } finally {
      ingress.close();
    }
  });

  it('--wait stops at once on a certificate it cannot verify, naming --ca', async () => {
    const tls = await ensureLocalTls({ dir: join(dir, 'tls'), dnsNames: [`*.${NODE_DOMAIN}`] });
    const ingress = https.createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, (_req, res) => res.end());
    await new Promise<void>((r) => ingress.listen(0, '127.0.0.1', r));
    try {
      const user = await stack.newUser(CREDITS);
      const { name, node } = await servedMarket();
      const via = `127.0.0.1:${(ingress.address() as AddressInfo).port}`;
      const running = post(user, name, '--wait', '--connect-to', via, '--timeout-wait', '30', '--poll-interval', '200');
      await node.claim(name);
      const run = await running;
      expect(run.code).toBe(1);
      expect(run.err).toMatch(
        /ocg: cannot verify the certificate of https:\/\/\w+\.nodes\.localhost: UNABLE_TO_VERIFY_LEAF_SIGNATURE\. For a local CA pass --ca <file> or set NODE_EXTRA_CA_CERTS\n$/,
      );
    } finally {
      ingress.close();
    }
  });
});

async function waitForJobs(user: TestUser): Promise<{ address: string }[]> {
  for (let i = 0; i < 100; i++) {
    const jobs = await jobsOf(user);
    if (jobs.length > 0) return jobs;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the job was never posted');
}
