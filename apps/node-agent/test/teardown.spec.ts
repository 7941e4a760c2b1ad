/**
 * A stopped job stops now, at any size: a 300-op group ends at its duration
 * with most of its starts still pending. None of them may start afterwards,
 * everything it made is removed, and the node API keeps answering meanwhile.
 */
import { generateWallet } from '@ocg/auth';
import { BUSYBOX_IMAGE, definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, signedHeader, startTestAgent, waitFor, type TestAgent } from './support/harness';
import { normalize, validate, type JobDefinition } from '@ocg/job-definition';
import { request } from './support/http';

// 300 containers on 2 shared cores: a machine busy with other work can stall any process once past
// the node API's 500 ms bound; a behaviour that is really unbounded fails both runs.
jest.retryTimes(1, { logErrorsBeforeRetry: true });

const node = newNodeId('teardown');
const nodeAddress = generateWallet().address;
const OPS = 300;
const DURATION_SECONDS = 20;
let t: TestAgent;

beforeAll(async () => {
  await prepareEngine();
  t = await startTestAgent(node, { NODE_ADDRESS: nodeAddress });
});

afterAll(async () => {
  await t?.close();
  const left = await leftovers(t.docker, node);
  await removeEverything(t.docker, node);
  expect(left).toEqual([]);
});

/** Start events of this node's containers, with their engine time (ms). */
async function recordStarts(): Promise<{ starts: number[]; stop(): void }> {
  const stream = await t.docker.getEvents({ filters: { label: [`ocg.node=${node}`], type: ['container'], event: ['start'] } });
  const starts: number[] = [];
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    const lines = (buffered + chunk.toString('utf8')).split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) starts.push(Number((JSON.parse(line) as { timeNano: number }).timeNano) / 1e6);
  });
  return { starts, stop: () => (stream as unknown as { destroy(): void }).destroy() };
}

/** Polls the node API every 100 ms (health and the job's 300-op status); records the slowest answer. */
function pollApi(job: () => string | undefined, header: () => string): { worst: () => number; stop(): Promise<void> } {
  let worst = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const path of ['/healthz', ...(job() ? [`/job/${job()}/ops`] : [])]) {
        const started = performance.now();
        // A new connection each time, as a client that does not keep sockets alive (no idle-socket races).
        const res = await request(`${t.agent.api.url}${path}`, { headers: { authorization: header() } });
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
        worst = Math.max(worst, performance.now() - started);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    worst: () => worst,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

it(`ends a ${OPS}-op group at its duration: no start after the end, nothing left, the API answering throughout`, async () => {
  const ops = Array.from({ length: OPS }, (_, i) => ({ type: 'container/run', id: `s${i}`, args: { image: BUSYBOX_IMAGE, cmd: ['sleep', '600'] }, execution: { group: 'big' } }));
  validate(definition(ops)); // the control plane validates a posted definition; here the first call also compiles the schema
  const events = await recordStarts();
  let job: string | undefined;
  let header = '';
  const api = pollApi(
    () => job,
    () => header,
  );
  try {
    const submitted = await t.submit(definition(ops), { durationSeconds: DURATION_SECONDS });
    job = submitted.job;
    header = signedHeader(submitted.wallet, nodeAddress, submitted.job);
    const summary = await t.waitEnded(submitted.job);
    const end = Date.parse(summary.deadline);
    expect(summary.state).toBe('completed');
    expect(summary.ops.filter((o) => o.state === 'running' || o.state === 'pending')).toEqual([]);
    expect(events.starts.length).toBeGreaterThan(0);
    // Starts already sent to the engine when the job ended (at most one per slot of the start pool) may land a
    // moment later on a loaded engine; no other start may follow.
    const late = events.starts.filter((at) => at > end).map((at) => Math.round(at - end));
    expect(late.length).toBeLessThanOrEqual(Number(t.config.START_CONCURRENCY));
    expect(late.filter((ms) => ms > 10_000)).toEqual([]);
    await waitFor(async () => (await leftovers(t.docker, node, submitted.job)).length === 0, 'every object of the job to be removed', 60_000);
    expect(t.agent.executor.leftovers()).toEqual({ jobs: 0, objects: 0 });
    expect((await request(`${t.agent.api.url}/readyz`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2000));
    expect(await leftovers(t.docker, node, submitted.job)).toEqual([]);
  } finally {
    events.stop();
    await api.stop();
  }
  expect(api.worst()).toBeLessThan(500);
}, 180_000);

it('keeps removing what an ended job left until nothing is, and is not ready meanwhile', async () => {
  const volume = { type: 'container/create-volume', id: 'make-data', args: { name: 'data' } };
  const { job } = await t.submit(definition([volume, runOp('work', 'sleep 600', { args: { volumes: [{ name: 'data', dest: '/data' }] }, execution: { group: 'work' } })]));
  await t.waitOp(job, 'work', 'running');
  // A container the agent did not make holds the job's volume: removing the volume fails while it exists.
  const holder = await t.docker.createContainer({ Image: BUSYBOX_IMAGE, Cmd: ['true'], HostConfig: { Mounts: [{ Type: 'volume', Source: `ocg-${job}-v-data`, Target: '/d' }] } });
  try {
    await t.agent.executor.stopAndWait(job, 'test');
    expect(t.agent.executor.leftovers()).toMatchObject({ jobs: 1 });
    const ready = await request(`${t.agent.api.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body).message).toMatch(/cleanup: \d+ containers, networks or volumes of 1 ended jobs are still in the engine/);
    expect(await leftovers(t.docker, node, job)).toContain(`volume ocg-${job}-v-data`);
  } finally {
    await holder.remove({ force: true });
  }
  await waitFor(async () => (await leftovers(t.docker, node, job)).length === 0, 'the retried cleanup', 30_000);
  await waitFor(() => t.agent.executor.leftovers().objects === 0, 'the leftovers count to drop');
  expect((await request(`${t.agent.api.url}/readyz`)).status).toBe(200);
});

it('leaves nothing of a job that ends while its network is still being made', async () => {
  const wallet = generateWallet();
  for (let i = 0; i < 5; i++) {
    const job = generateWallet().address;
    const normalized = normalize(definition([runOp('work', 'sleep 600')]) as JobDefinition);
    const running = t.agent.executor.run({ job, poster: wallet.address, definition: normalized, deadline: Date.now() + 60_000 });
    // The stop arrives before the network exists: the end waits for it, then removes it.
    await t.agent.executor.stopAndWait(job, 'stopped at once');
    await running.catch(() => undefined);
    expect(await leftovers(t.docker, node, job)).toEqual([]);
  }
  // Five networks made and removed (and their firewall rules): seconds each on an engine busy with other work.
}, 120_000);
