/**
 * A claim whose answer its node never got is offered again (to the same node
 * when it claims again, or to any node once the lease is over) instead of
 * failing the job as lost 60 s later. A claim is provisional until the node
 * names the job (report, sync or finish).
 */
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { sleeper } from './support/definitions';
import { startManagers, type Managers, type TestUser } from './support/managers';
import { SignedNode } from './support/nodes';
import { expectBalance } from './support/jobs';

const PRICE = 1000;
const CREDITS = 1_000_000;

describe('claims whose answer was lost', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let market: { address: string; name: string; joinToken: string };

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m, { CLAIM_REDELIVER_SECONDS: 2, CLAIM_ACK_SECONDS: 30, LOST_JOB_GRACE_SECONDS: 60 });
    market = await m.createMarket({ pricePerSecond: PRICE });
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  const registered = async () => {
    const node = new SignedNode();
    await node.register(m, market.name, market.joinToken);
    return node;
  };
  const post = async (user: TestUser) => (await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 100 })).body.address as string;
  const claim = async (node: SignedNode) => (await node.send(dm.url, '/node-jobs/claim', { market: market.name })).body.assignment?.job as string | undefined;
  const job = (user: TestUser, address: string) => dm.as(user, 'GET', `/jobs/${address}`).then((r) => r.body);
  /** As if the claim had been made `seconds` ago. */
  const claimedAgo = (address: string, seconds: number) =>
    dm.db.query(`UPDATE jobs SET started_at = now() - make_interval(secs => $2), last_seen_at = now() - make_interval(secs => $2) WHERE address = $1`, [address, seconds]);

  it('offers a claim its node never acknowledged to that node again when it claims again', async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered();
    const address = await post(user);
    expect(await claim(node)).toBe(address); // this answer is "lost"
    expect(await claim(node)).toBeUndefined(); // claiming again at once: no loop of the same job
    await claimedAgo(address, 3);
    expect(await claim(node)).toBe(address); // offered again
    expect(await job(user, address)).toMatchObject({ status: 'RUNNING', node: node.address });
  });

  it('gives an unacknowledged claim back to the queue after the lease, where another node gets it', async () => {
    const user = await m.newUser(CREDITS);
    const [lost, other] = [await registered(), await registered()];
    const address = await post(user);
    expect(await claim(lost)).toBe(address);
    await claimedAgo(address, 31);
    await dm.services.sweeper.sweep();
    expect(await job(user, address)).toMatchObject({ status: 'QUEUED', node: null });
    expect(await claim(other)).toBe(address);
    await other.send(dm.url, '/node-jobs/sync', { running: [address] });
    const running = await job(user, address);
    expect(running).toMatchObject({ status: 'RUNNING', node: other.address });
    // The first node's late word about it: not its job any more.
    const late = await lost.send(dm.url, '/node-jobs/sync', { running: [address] });
    expect(late.body.stop).toEqual([{ job: address, reason: 'not assigned to this node' }]);
    // Billing starts at the claim that was acknowledged, not at the lost one.
    const stopped = (await dm.as(user, 'POST', `/jobs/${address}/stop`)).body;
    expect(stopped).toMatchObject({ status: 'STOPPED', settlement: 'settled' });
    expect(stopped.billedSeconds).toBeLessThanOrEqual(2);
    await expectBalance(m, user, CREDITS, stopped.cost);
  });

  it('keeps an acknowledged claim: its node named the job in a sync', async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered();
    const address = await post(user);
    expect(await claim(node)).toBe(address);
    await node.send(dm.url, '/node-jobs/sync', { running: [address] });
    await claimedAgo(address, 31);
    await dm.services.sweeper.sweep();
    expect(await claim(node)).toBeUndefined();
    expect(await job(user, address)).toMatchObject({ status: 'RUNNING', node: node.address });
  });

  it('counts a report as the acknowledgement too', async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered();
    const address = await post(user);
    expect(await claim(node)).toBe(address);
    const report = await node.send(dm.url, `/node-jobs/${address}/report`, { ops: [{ id: 'sleep', opIndex: 0, status: 'running' }] });
    expect(report.status).toBe(200);
    await claimedAgo(address, 31);
    await dm.services.sweeper.sweep();
    expect((await job(user, address)).status).toBe('RUNNING');
  });

  it("does not fail as lost a job whose claim never reached its node (the node's sync does not list it)", async () => {
    const user = await m.newUser(CREDITS);
    const node = await registered();
    const address = await post(user);
    expect(await claim(node)).toBe(address);
    await claimedAgo(address, 61);
    await node.send(dm.url, '/node-jobs/sync', { running: [] });
    expect((await job(user, address)).status).not.toBe('FAILED');
    await dm.services.sweeper.sweep();
    expect(await job(user, address)).toMatchObject({ status: 'QUEUED' });
  });
});
