import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { sleeper } from './support/definitions';
import { startManagers, type Managers, type TestUser } from './support/managers';
import { SignedNode } from './support/nodes';
import { waitFor } from '@ocg/testing';
import { allowedSources } from '../src/jobs/state';

describe('claiming jobs', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let user: TestUser;
  let market: { address: string; name: string; joinToken: string };
  const nodes: SignedNode[] = [];

  beforeAll(async () => {
    m = await startManagers();
    // 61 posts by one user within a minute: more than the default per-user limit.
    dm = await startDeploymentManager(m, { JOB_POSTS_PER_MINUTE: 0 });
    market = await m.createMarket({ pricePerSecond: 1 });
    user = await m.newUser(100_000_000);
    for (let i = 0; i < 20; i++) nodes.push(new SignedNode());
    await Promise.all(nodes.map((n) => n.register(m, market.name, market.joinToken)));
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  const post = async (count: number, marketRef = market.name) => {
    const addresses: string[] = [];
    for (let i = 0; i < count; i++) addresses.push((await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: marketRef, durationSeconds: 100 })).body.address);
    return addresses;
  };
  const claimAll = () => Promise.all(nodes.map((n) => n.send(dm.url, '/node-jobs/claim', { market: market.address })));

  it('gives each of N queued jobs to exactly one of 20 nodes claiming at once', async () => {
    const queued = await post(12);
    const answers = await claimAll();
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const claims = answers.flatMap((a, i) => (a.body.assignment ? [{ job: a.body.assignment.job as string, node: nodes[i].address }] : []));
    expect(claims).toHaveLength(12);
    expect(new Set(claims.map((c) => c.job))).toEqual(new Set(queued));
    for (const c of claims) expect((await dm.as(user, 'GET', `/jobs/${c.job}`)).body).toMatchObject({ status: 'RUNNING', node: c.node });
    expect((await claimAll()).every((a) => a.body.assignment === null)).toBe(true);
  });

  it('never double-assigns over repeated rounds of concurrent claims', async () => {
    const queued = await post(45);
    const claimed: string[] = [];
    for (let round = 0; round < 4; round++) for (const a of await claimAll()) if (a.body.assignment) claimed.push(a.body.assignment.job);
    expect(claimed.sort()).toEqual([...queued].sort());
  });

  it('hands out the oldest job first, with the assignment the node needs', async () => {
    const [first, second] = await post(2);
    const a = await nodes[0].send(dm.url, '/node-jobs/claim', { market: market.name });
    const b = await nodes[1].send(dm.url, '/node-jobs/claim', { market: market.name });
    expect([a.body.assignment.job, b.body.assignment.job]).toEqual([first, second]);
    expect(a.body.assignment).toMatchObject({ poster: user.address, definition: { version: '0.1', ops: [expect.objectContaining({ id: 'sleep' })] } });
    expect(a.body.assignment.deadline).toBeGreaterThan(Date.now() + 95_000);
  });

  it('wakes a waiting claim as soon as a job is posted', async () => {
    const started = Date.now();
    const waiting = nodes[2].send(dm.url, '/node-jobs/claim', { market: market.address, waitSeconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    const [posted] = await post(1);
    const res = await waiting;
    expect(res.body.assignment.job).toBe(posted);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("keeps every node within its capacity when all its claims arrive at once with other nodes' claims", async () => {
    const small = await m.createMarket({ pricePerSecond: 1 });
    const two = Array.from({ length: 8 }, () => new SignedNode());
    await Promise.all(two.map((n) => n.register(m, small.name, small.joinToken, 2)));
    const queued = await post(20, small.name);
    const asked = two.flatMap((n) => [0, 1, 2].map(() => n));
    const answers = await Promise.all(asked.map((n) => n.send(dm.url, '/node-jobs/claim', { market: small.address })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const claims = answers.flatMap((a, i) => (a.body.assignment ? [{ job: a.body.assignment.job as string, node: asked[i].address }] : []));
    expect(new Set(claims.map((c) => c.job)).size).toBe(16); // 8 nodes of capacity 2; no job twice
    for (const n of two) expect(claims.filter((c) => c.node === n.address)).toHaveLength(2);
    expect(claims.every((c) => queued.slice(0, 16).includes(c.job))).toBe(true); // the oldest first
  });

  it('answers a batch of claims in one statement as each claim alone: redelivery first, capacity, the oldest job to the first node', async () => {
    const other = await m.createMarket({ pricePerSecond: 1 });
    const [j1, j2, j3, j4] = await post(4, other.name);
    const claimJobs = async (nodes: string[], capacities: number[]) => {
      const given: { address: string; node_address: string }[] = await dm.db.query(`SELECT address, node_address FROM claim_jobs($1, $2, $3, 2, $4)`, [
        other.address,
        nodes,
        capacities,
        allowedSources('RUNNING'),
      ]);
      return given.map((r) => [r.node_address, r.address]).sort();
    };
    // "a" named twice counts both against its capacity of 1; "full" may run no job.
    expect(await claimJobs(['node-a', 'node-b', 'node-a', 'node-c', 'node-full'], [1, 5, 1, 5, 0])).toEqual([
      ['node-a', j1],
      ['node-b', j2],
      ['node-c', j3],
    ]);
    await dm.db.query(`UPDATE jobs SET started_at = now() - interval '3 seconds' WHERE address = $1`, [j1]);
    // a's unacknowledged claim comes back to it (its capacity is full); b gets the next queued job.
    expect(await claimJobs(['node-b', 'node-a'], [5, 1])).toEqual([
      ['node-a', j1],
      ['node-b', j4],
    ]);
    expect(await claimJobs(['node-a', 'node-b', 'node-c'], [5, 5, 5])).toEqual([]);
  });

  it("takes the nodes' locks in one order, so two batches naming the same nodes in opposite orders never deadlock", async () => {
    const nodes = Array.from({ length: 20 }, (_, i) => `lock-order-${String(i).padStart(2, '0')}`);
    const [holder, a, b] = [dm.db.createQueryRunner(), dm.db.createQueryRunner(), dm.db.createQueryRunner()];
    const key = `hashtext('ocg:claim:' || $1)`;
    try {
      // One node's lock held elsewhere: both batches stop at it, each holding the locks it took before.
      await holder.query(`SELECT pg_advisory_lock(${key})`, [nodes[10]]);
      const claimJobs = (runner: typeof a, order: string[]) =>
        runner.query(`SELECT address FROM claim_jobs('no-such-market', $1, $2, 2, $3)`, [order, order.map(() => 1), allowedSources('RUNNING')]);
      const both = Promise.allSettled([claimJobs(a, nodes), claimJobs(b, [...nodes].reverse())]);
      const waiting = `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
      const bothWait = async () => Number((await holder.query(waiting))[0].n) >= 2 || undefined;
      await waitFor(bothWait, { timeoutMs: 10_000, what: 'both batches waiting for the held lock' });
      await holder.query(`SELECT pg_advisory_unlock(${key})`, [nodes[10]]);
      expect((await both).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    } finally {
      for (const r of [holder, a, b]) await r.release();
    }
  });

  it('never hands a job of another market to a claimer', async () => {
    const other = await m.createMarket({ pricePerSecond: 1 });
    await post(1, other.name);
    expect((await nodes[3].send(dm.url, '/node-jobs/claim', { market: market.address })).body.assignment).toBeNull();
  });
});
