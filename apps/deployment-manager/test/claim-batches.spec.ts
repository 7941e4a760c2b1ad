/** How claims are grouped into batches (ADR 0085); what a batch assigns is claim.concurrency.spec.ts's. */
import { ClaimBatches } from '../src/jobs/claim-batches';

interface Job {
  address: string;
  node_address: string | null;
}

/** A batch runner that records each batch and answers when told to. */
function recorder() {
  const batches: { market: string; nodes: string[]; capacities: number[]; answer: (jobs: Job[] | Error) => void }[] = [];
  const run = (market: string, nodes: string[], capacities: number[]) =>
    new Promise<Job[]>((resolve, reject) => batches.push({ market, nodes, capacities, answer: (jobs) => (jobs instanceof Error ? reject(jobs) : resolve(jobs)) }));
  return { batches, run };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('claim batches', () => {
  it("answers the claims of one turn with one batch of their market, each with its node's job", async () => {
    const { batches, run } = recorder();
    const claims = new ClaimBatches<Job>(run);
    const a = claims.claim('m1', 'n1', 2);
    const b = claims.claim('m1', 'n2', 3);
    const c = claims.claim('m1', 'n3', 1);
    const other = claims.claim('m2', 'n4', 1);
    await turn();
    expect(batches.map(({ market, nodes, capacities }) => ({ market, nodes, capacities }))).toEqual([
      { market: 'm1', nodes: ['n1', 'n2', 'n3'], capacities: [2, 3, 1] },
      { market: 'm2', nodes: ['n4'], capacities: [1] },
    ]);
    batches[0].answer([
      { address: 'j2', node_address: 'n3' },
      { address: 'j1', node_address: 'n1' },
    ]);
    batches[1].answer([]);
    expect(await Promise.all([a, b, c, other])).toEqual([{ address: 'j1', node_address: 'n1' }, undefined, { address: 'j2', node_address: 'n3' }, undefined]);
  });

  it('gathers the claims that arrive while a batch is in flight into one next batch, a node once a batch', async () => {
    const { batches, run } = recorder();
    const claims = new ClaimBatches<Job>(run);
    const first = claims.claim('m1', 'n1', 5);
    await turn();
    const later = [claims.claim('m1', 'n2', 5), claims.claim('m1', 'n1', 5), claims.claim('m1', 'n1', 5), claims.claim('m1', 'n3', 5)];
    await turn();
    expect(batches).toHaveLength(1); // one batch of a market at a time
    batches[0].answer([{ address: 'j1', node_address: 'n1' }]);
    expect(await first).toEqual({ address: 'j1', node_address: 'n1' });
    await turn();
    expect(batches.map((b) => b.nodes)).toEqual([['n1'], ['n2', 'n1', 'n3']]); // n1's second claim waits for the batch after
    batches[1].answer([
      { address: 'j2', node_address: 'n2' },
      { address: 'j3', node_address: 'n1' },
    ]);
    await turn();
    expect(batches.map((b) => b.nodes)).toEqual([['n1'], ['n2', 'n1', 'n3'], ['n1']]);
    batches[2].answer([{ address: 'j4', node_address: 'n1' }]);
    expect(await Promise.all(later)).toEqual([{ address: 'j2', node_address: 'n2' }, { address: 'j3', node_address: 'n1' }, { address: 'j4', node_address: 'n1' }, undefined]);
  });

  it('caps a batch, and fails only the claims of a batch that failed', async () => {
    const { batches, run } = recorder();
    const claims = new ClaimBatches<Job>(run, 2);
    const asked = ['n1', 'n2', 'n3'].map((n) => claims.claim('m1', n, 1).catch((err: Error) => err.message));
    await turn();
    expect(batches.map((b) => b.nodes)).toEqual([['n1', 'n2']]);
    batches[0].answer(new Error('connection lost'));
    await turn();
    expect(batches.map((b) => b.nodes)).toEqual([['n1', 'n2'], ['n3']]);
    batches[1].answer([{ address: 'j1', node_address: 'n3' }]);
    expect(await Promise.all(asked)).toEqual(['connection lost', 'connection lost', { address: 'j1', node_address: 'n3' }]);
  });
});
