/**
 * `ocg job logs|ops|op|group` against a real node agent running the job in
 * Docker, reached through the gateway's node host with the header the CLI
 * signs itself.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { BUSYBOX_IMAGE, ensureBusyboxImage, freePorts, removeNodeObjects, startTsProcess, testNodeId, waitFor, type ManagedProcess, testResourceDir } from '@ocg/testing';
import { ocg, ocgSeeing } from './support/cli';
import { cuttingProxy } from './support/cutting-proxy';
import { NODE_DOMAIN, call, startStack, type TestStack, type TestUser } from './support/stack';

jest.setTimeout(120_000);

const TICKS = 100;
const CLOCK = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}`;
const run = (id: string, script: string, group: string) => ({ type: 'container/run', id, args: { image: BUSYBOX_IMAGE, cmd: ['sh', '-c', script] }, execution: { group } });
// Stage "main" never ends on its own (the worker runs until stopped), so "later" waits.
const definition = {
  version: '0.1',
  type: 'container',
  ops: [
    run('ticker', `for i in $(seq 0 ${TICKS - 1}); do echo "tick $i"; sleep 0.02; done`, 'main'),
    run('worker', 'while true; do echo working; sleep 1; done', 'main'),
    run('later', 'echo later-ran', 'later'),
  ],
};

let stack: TestStack;
let agent: ManagedProcess;
const nodeId = testNodeId('cli');
const agentLines: string[] = [];
let user: TestUser;
let job: string;
let nodeUrl: string;
const as = (...more: string[]) => ['--node-url', nodeUrl, '--gateway', stack.gateway, '--api-key', user.key, ...more];

beforeAll(async () => {
  await ensureBusyboxImage();
  stack = await startStack(['client-manager', 'host-manager', 'deployment-manager', 'gateway']);
  const market = await stack.createMarket({ name: 'Node CLI' });
  const ports = await freePorts(['api', 'ingress']);
  agent = startTsProcess(
    'node-agent',
    resolve(__dirname, '../../node-agent/src/main.ts'),
    {
      CONTROL_PLANE_URL: stack.gateway,
      MARKET: market.name,
      JOIN_TOKEN: market.joinToken,
      NODE_KEY: randomBytes(32).toString('hex'),
      NODE_ID: nodeId,
      API_PORT: String(ports.api),
      INGRESS_PORT: String(ports.ingress),
      NODE_DOMAIN,
      NODE_GPUS: 'false',
      RESOURCE_CACHE_DIR: testResourceDir(),
      CONTAINER_MEMORY_MB: '128',
      STOP_GRACE_SECONDS: '1',
      CLAIM_WAIT_SECONDS: '2',
      SYNC_INTERVAL_MS: '1000',
      LOG_LEVEL: 'info',
    },
    4,
    (line) => agentLines.push(line),
  );
  await waitFor(() => agentLines.some((l) => l.includes('node agent in control-plane mode')), { timeoutMs: 60_000, what: 'the node agent to start' });
  user = await stack.newUser(50_000_000);
  job = (await call(stack.gateway, 'POST', '/jobs', user.key, { definition, market: market.name, durationSeconds: 600 })).address;
  const record = await waitFor(
    async () => {
      const r = await call(stack.gateway, 'GET', `/jobs/${job}`, user.key);
      return r.status === 'RUNNING' && r;
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'the job to run' },
  );
  nodeUrl = `http://${String(record.node).toLowerCase()}.${NODE_DOMAIN}:${new URL(stack.gateway).port}`;
}, 240_000);

afterAll(async () => {
  await agent?.stop();
  await stack?.stop();
  await removeNodeObjects(nodeId);
});

/** Until `ocg job ops` shows the op in one of `states`. */
const opIs = (op: string, ...states: string[]) =>
  waitFor(
    async () => {
      const shown = await ocg('job', 'ops', job, ...as());
      if (new RegExp(`\n${op} +\\S+ +(${states.join('|')}) `).test(shown.out)) return true;
      throw new Error(`${shown.out}${shown.err}`);
    },
    { timeoutMs: 30_000, intervalMs: 250, what: `${op} ${states}` },
  );

it("shows the ops as the node runs them, and every op's lines by time with their op", async () => {
  await opIs('worker', 'running');
  const ops = await ocg('job', 'ops', job, ...as());
  expect(ops.out).toMatch(
    new RegExp(
      `^job +${job}\nstate +running\nstage +main\n\nOP +GROUP +STATE +EXIT +RESTARTS +ENDPOINTS\nticker +main +\\w+ .*\nworker +main +running +- +0 +-\nlater +later +pending +- +0 +-\n$`,
    ),
  );
  await waitFor(async () => /\| working\n/.test((await ocg('job', 'logs', job, ...as())).out), { timeoutMs: 20_000, what: 'a line of the worker' });
  const read = await ocg('job', 'logs', job, ...as());
  const logs = read.out.trim().split('\n');
  expect(logs.every((l) => new RegExp(`^${CLOCK} (ticker|worker|later) +\\| `).test(l))).toBe(true);
  // What it printed on stderr, if anything, says why an op's lines are missing.
  const seen = { err: read.err, ticker: logs.some((l) => / ticker +\| tick \d+$/.test(l)), worker: logs.some((l) => / worker +\| working$/.test(l)) };
  expect(seen).toEqual({ err: '', ticker: true, worker: true });
  const times = logs.map((l) => l.slice(0, 23));
  expect(times).toEqual([...times].sort());
});

it('follows an op across a cut connection: every line once, in order, and says it reconnected', async () => {
  const proxy = await cuttingProxy(Number(new URL(stack.gateway).port), 1500);
  try {
    await opIs('ticker', 'completed');
    const since = new Date().toISOString();
    const restart = await ocg('job', 'op', 'restart', job, 'ticker', ...as());
    expect(restart.out).toMatch(/^restarted op ticker \(group main\); the ops now:\n\nOP +GROUP +STATE +EXIT +RESTARTS +REASON\nticker +main +(pending|running) /);
    const url = nodeUrl.replace(/:\d+$/, `:${proxy.port}`);
    const followed = await ocg(
      'job',
      'logs',
      job,
      '--op',
      'ticker',
      '--follow',
      '--since',
      since,
      '--stream',
      'stdout',
      '--node-url',
      url,
      '--gateway',
      stack.gateway,
      '--api-key',
      user.key,
    );
    expect(followed.code).toBe(0);
    expect(proxy.cuts).toBe(1);
    expect(followed.err).toMatch(/ocg: op ticker: reconnected after \d+\.\d s \(.+\); going on after the last line shown\n/);
    const ticks = followed.out
      .trim()
      .split('\n')
      .map((l) => l.replace(new RegExp(`^${CLOCK} ticker \\| `), ''));
    expect(ticks).toEqual(Array.from({ length: TICKS }, (_, i) => `tick ${i}`));
  } finally {
    proxy.close();
  }
});

it('says why the node refused, and exits 1: a group that is not running, an op the job does not have', async () => {
  const group = await ocg('job', 'group', 'stop', job, 'later', ...as());
  expect(group).toMatchObject({ code: 1, out: '' });
  expect(group.err).toBe('ocg: the node refused (409 ConflictError): group later is not running (later pending)\n');
  const op = await ocg('job', 'op', 'stop', job, 'nope', ...as());
  expect(op.code).toBe(1);
  expect(op.err).toBe(`ocg: job ${job} has no op nope (its ops: ticker, worker, later)\n`);
});

it("restarts a group and stops an op, printing the ops as they are now (the node's answer with --json)", async () => {
  const restarted = await ocg('job', 'group', 'restart', job, 'main', '--json', ...as());
  expect(JSON.parse(restarted.out)).toMatchObject({ job, ops: [{ id: 'ticker' }, { id: 'worker' }] });
  await opIs('worker', 'running');
  const stopped = await ocg('job', 'op', 'stop', job, 'worker', ...as());
  expect(stopped.out).toMatch(
    /^stopped op worker \(group main\); the ops now:\n\nOP +GROUP +STATE +EXIT +RESTARTS +REASON\nworker +main +stopped +\S+ +0 +stopped through the node API\n$/,
  );
});

it('watches the ops until the job ends, a line per change when not on a terminal, across a node out of reach; a group stop ends the stage', async () => {
  await opIs('worker', 'stopped');
  await ocg('job', 'op', 'restart', job, 'worker', ...as());
  await opIs('worker', 'running');
  const proxy = await cuttingProxy(Number(new URL(stack.gateway).port), Infinity);
  let shown = false;
  const through = ['--node-url', nodeUrl.replace(/:\d+$/, `:${proxy.port}`), '--gateway', stack.gateway, '--api-key', user.key];
  const watching = ocgSeeing((r) => (shown ||= r.out.includes('\nworker ')), 'job', 'ops', job, '--watch', '--interval', '200', ...through);
  await waitFor(() => shown, { timeoutMs: 20_000, what: 'the first table' });
  proxy.outage(1500);
  const stop = await ocg('job', 'group', 'stop', job, 'main', ...as());
  expect(stop.out).toMatch(/^stopped group main; the ops now:\n/);
  const watched = await watching.finally(() => proxy.close());
  expect(watched.code).toBe(0);
  expect(watched.err).toMatch(new RegExp(`^${String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`}  cannot reach the node API at http://\\S+ \\(.+\\); asking again\n`));
  expect(watched.err).toMatch(/ {2}the node answers again after \d+\.\d s\n$/);
  expect(watched.out).toMatch(new RegExp(`\n${String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`}  op worker running -> stopped \\(exit \\d+, stopped through the node API\\)\n`));
  expect(watched.out).toMatch(/ {2}stage main -> (later|-)\n/);
  expect(watched.out).toMatch(/ {2}job running -> completed/);
});
