import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceClient } from '@ocg/http';
import { MarketsClient } from '../src/clients/markets.client';

/** A host-manager stand-in on loopback: answers markets and nodes after a short delay, counting the requests. */
describe('MarketsClient', () => {
  let server: Server;
  let client: MarketsClient;
  const asked: string[] = [];
  const market = { address: 'sFtKEQHs9Ydi1CNyp985YmDPirmkbej5MewZNxbejuV', name: 'Bench', pricePerSecond: 1 };
  let nodeState = 'ACTIVE';

  beforeAll(async () => {
    server = createServer((req, res) => {
      asked.push(req.url ?? '');
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        if (req.url?.startsWith('/internal/markets/missing')) res.writeHead(404).end('{"message":"no"}');
        else if (req.url?.startsWith('/internal/markets/')) res.end(JSON.stringify(market));
        else res.end(JSON.stringify({ address: 'n1', market: market.address, state: nodeState, capacity: 3 }));
      }, 50);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = new MarketsClient(new ServiceClient({ service: 'host-manager', baseUrl, timeoutMs: 5000 }), 60_000);
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => asked.splice(0));

  it('asks host-manager once for requests that miss the cache together, and keeps no failure', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => client.resolve(market.address)));
    expect(answers).toEqual(Array(5).fill(market));
    expect(await client.resolve('bench')).toEqual(market); // by name: its own look-up
    expect(await client.resolve(market.address)).toEqual(market); // cached
    expect(asked).toEqual([`/internal/markets/${market.address}`, '/internal/markets/bench']);

    const missing = await Promise.allSettled([client.resolve('missing'), client.resolve('missing')]);
    expect(missing.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(client.resolve('missing')).rejects.toThrow(/No market/);
    expect(asked.filter((url) => url === '/internal/markets/missing')).toHaveLength(2);
  });

  it("shares a node's standing look-up, and a look-up running when the node changes serves no later claim", async () => {
    const [a, b] = await Promise.all([client.nodeStanding('n1'), client.nodeStanding('n1')]);
    expect(a).toEqual({ market: market.address, state: 'ACTIVE', capacity: 3 });
    expect(b).toBe(a);
    expect(asked).toEqual(['/internal/nodes/n1']);

    client.forgetNode('n1');
    const stale = client.nodeStanding('n1'); // asked before the change
    nodeState = 'DISABLED';
    client.forgetNode('n1'); // host-manager disabled it meanwhile
    const fresh = await client.nodeStanding('n1');
    expect(fresh?.state).toBe('DISABLED');
    await stale;
    expect(asked).toHaveLength(3);
  });
});
