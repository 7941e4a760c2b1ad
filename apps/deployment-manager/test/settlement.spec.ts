import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, INTERNAL_TOKEN, type Managers } from './support/managers';
import { SignedNode } from './support/nodes';
import { expectBalance, runningJob } from './support/jobs';

const PRICE = 1000;
const CREDITS = 1_000_000;

/**
 * Crashes leave the database in states a running service never would for
 * long; these tests write those states directly, then let the sweeper finish.
 */
describe('settlement after a crash', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let market: { address: string; name: string; joinToken: string };
  let node: SignedNode;

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m);
    market = await m.createMarket({ pricePerSecond: PRICE });
    node = new SignedNode();
    await node.register(m, market.name, market.joinToken);
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  const job = (user: { key: string }, address: string) => dm.as(user as never, 'GET', `/jobs/${address}`).then((r) => r.body);

  it('settles a job that ended but was never settled (a crash between the two), once the sweeper runs', async () => {
    const user = await m.newUser(CREDITS);
    const address = await runningJob(dm, user, node, market.name);
    await dm.db.query(`UPDATE jobs SET status = 'STOPPED', end_reason = 'stopped by the poster', finished_at = started_at + interval '2 seconds' WHERE address = $1`, [address]);
    expect(await m.balance(user)).toMatchObject({ held: 100 * PRICE });
    await dm.services.sweeper.sweep();
    expect(await job(user, address)).toMatchObject({ settlement: 'settled', billedSeconds: 2, cost: 2 * PRICE });
    await expectBalance(m, user, CREDITS, 2 * PRICE);
  });

  it('settles once when the record of a settle was lost after client-manager made it', async () => {
    const user = await m.newUser(CREDITS);
    const address = await runningJob(dm, user, node, market.name);
    const stopped = (await dm.as(user, 'POST', `/jobs/${address}/stop`)).body;
    expect(stopped.settlement).toBe('settled');
    await dm.db.query(`UPDATE jobs SET settled_at = NULL, settle_attempt_at = NULL WHERE address = $1`, [address]);
    await dm.db.query(`UPDATE job_holds SET state = 'open', settled = NULL WHERE job_address = $1`, [address]);
    await dm.services.sweeper.sweep();
    expect(await job(user, address)).toMatchObject({ settlement: 'settled', cost: stopped.cost });
    await expectBalance(m, user, CREDITS, stopped.cost);
  });

  it('settles a job once when several settlements race', async () => {
    const user = await m.newUser(CREDITS);
    const address = await runningJob(dm, user, node, market.name);
    await dm.db.query(`UPDATE jobs SET status = 'STOPPED', finished_at = started_at + interval '3 seconds' WHERE address = $1`, [address]);
    await Promise.all([dm.services.settlement.settle(address), dm.services.settlement.settle(address), dm.services.sweeper.sweep(), dm.services.sweeper.sweep()]);
    await dm.services.sweeper.sweep();
    await expectBalance(m, user, CREDITS, 3 * PRICE);
  });

  it('releases a hold placed by a post that died before it recorded its job', async () => {
    const user = await m.newUser(CREDITS);
    const reference = 'DiedAfterHold1111111111111111111111111111111';
    const placed = await fetch(`${m.clientManagerUrl}/credits/holds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ocg-internal-token': INTERNAL_TOKEN },
      body: JSON.stringify({ userId: user.id, amount: 5000, reference }),
    });
    expect(placed.status).toBe(200);
    await dm.db.query(
      `INSERT INTO job_holds (reference, job_address, seq, user_id, amount, seconds, state, updated_at) VALUES ($1, $1, 0, $2, 5000, 5, 'placing', now() - interval '1 hour')`,
      [reference, user.id],
    );
    expect(await m.balance(user)).toMatchObject({ held: 5000 });
    await dm.services.sweeper.sweep();
    await expectBalance(m, user, CREDITS, 0);
    expect(await dm.db.query(`SELECT state, settled::int FROM job_holds WHERE reference = $1`, [reference])).toEqual([{ state: 'closed', settled: 0 }]);
  });

  it('leaves the balance whole when a post died before client-manager placed its hold', async () => {
    const user = await m.newUser(CREDITS);
    const reference = 'DiedBeforeHold111111111111111111111111111111';
    await dm.db.query(
      `INSERT INTO job_holds (reference, job_address, seq, user_id, amount, seconds, state, updated_at) VALUES ($1, $1, 0, $2, 5000, 5, 'placing', now() - interval '1 hour')`,
      [reference, user.id],
    );
    await dm.services.sweeper.sweep();
    await expectBalance(m, user, CREDITS, 0);
  });
});
