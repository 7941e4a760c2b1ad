/** One node's claim waiting for its market's next batch. */
interface Asked<T> {
  node: string;
  capacity: number;
  resolve: (job: T | undefined) => void;
  reject: (err: unknown) => void;
}

interface Market<T> {
  asked: Asked<T>[];
  /** A batch is scheduled or in flight: claims arriving now join the next one. */
  busy: boolean;
}

/** Runs one batch: the nodes (distinct, in the order they asked) and their capacities; answers the jobs given, each naming its node. */
export type ClaimBatch<T> = (market: string, nodes: string[], capacities: number[]) => Promise<T[]>;

/**
 * Claims of one market that arrive together share one statement (ADR 0085):
 * those of one turn of the event loop, and those that arrive while the
 * market's batch is in flight, go in the market's next batch. One batch of a
 * market at a time, at most `max` claims, each node once (a node's second
 * claim waits for the batch after). Each claim gets its node's job, or
 * nothing, or the batch's error.
 */
export class ClaimBatches<T extends { node_address: string | null }> {
  private readonly markets = new Map<string, Market<T>>();

  constructor(
    private readonly run: ClaimBatch<T>,
    private readonly max = 100,
  ) {}

  claim(market: string, node: string, capacity: number): Promise<T | undefined> {
    let m = this.markets.get(market);
    if (!m) this.markets.set(market, (m = { asked: [], busy: false }));
    const answer = new Promise<T | undefined>((resolve, reject) => m.asked.push({ node, capacity, resolve, reject }));
    if (!m.busy) {
      m.busy = true;
      setImmediate(() => void this.flush(market, m));
    }
    return answer;
  }

  private async flush(market: string, m: Market<T>): Promise<void> {
    const batch: Asked<T>[] = [];
    const later: Asked<T>[] = [];
    const nodes = new Set<string>();
    for (const a of m.asked) {
      if (batch.length < this.max && !nodes.has(a.node)) {
        nodes.add(a.node);
        batch.push(a);
      } else later.push(a);
    }
    m.asked = later;
    try {
      const jobs = await this.run(
        market,
        batch.map((a) => a.node),
        batch.map((a) => a.capacity),
      );
      const byNode = new Map(jobs.map((j) => [j.node_address, j]));
      for (const a of batch) a.resolve(byNode.get(a.node));
    } catch (err) {
      for (const a of batch) a.reject(err);
    }
    if (m.asked.length > 0) void this.flush(market, m);
    else if (this.markets.get(market) === m) this.markets.delete(market);
  }
}
