import type { Managers, TestUser } from './managers';
import type { TestDeploymentManager } from './deployment-manager';
import { sleeper } from './definitions';
import type { SignedNode } from './nodes';

/** Posts a sleeper job and has `node` claim it and acknowledge the claim (a sync naming it): a RUNNING job without Docker. */
export async function runningJob(dm: TestDeploymentManager, user: TestUser, node: SignedNode, market: string, durationSeconds = 100): Promise<string> {
  const posted = await dm.as(user, 'POST', '/jobs', { definition: sleeper(), market, durationSeconds });
  if (posted.status !== 200) throw new Error(`job not posted: ${JSON.stringify(posted.body)}`);
  const claimed = await node.send(dm.url, '/node-jobs/claim', { market });
  if (claimed.body?.assignment?.job !== posted.body.address) throw new Error(`job not claimed: ${JSON.stringify(claimed.body)}`);
  const acked = await node.send(dm.url, '/node-jobs/sync', { running: [posted.body.address] });
  if (acked.status !== 200) throw new Error(`claim not acknowledged: ${JSON.stringify(acked.body)}`);
  // Heard from at the claim itself, so billing tests count whole seconds from the claim.
  await dm.db.query(`UPDATE jobs SET last_seen_at = started_at WHERE address = $1`, [posted.body.address]);
  return posted.body.address;
}

/** Moves a job's clocks back by `seconds`, as if that much time had passed. */
export async function age(dm: TestDeploymentManager, address: string, seconds: number): Promise<void> {
  const shift = `make_interval(secs => ${seconds})`;
  await dm.db.query(
    `UPDATE jobs SET created_at = created_at - ${shift}, started_at = started_at - ${shift}, ends_at = ends_at - ${shift}, last_seen_at = last_seen_at - ${shift} WHERE address = $1`,
    [address],
  );
}

export async function expectBalance(m: Pick<Managers, 'balance'>, user: TestUser, granted: number, spent: number): Promise<void> {
  expect(await m.balance(user)).toEqual({ userId: user.id, available: granted - spent, held: 0, spent });
}
