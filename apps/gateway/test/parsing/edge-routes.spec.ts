/**
 * The gateway's book of the edge's map (ADR 0093): which runtime API
 * commands each change sends, in which batches, and what it forgets when a
 * batch fails. HAProxy's side is edge.spec.ts; here the commands are
 * recorded as they would be sent.
 */
import { loggerInto } from '../support/ingress-fixtures';
import { connectionsWithin } from '../../src/edge';
import { EdgeRoutes } from '../../src/edge/routes';

const MAP = '/edge/forwards.map';
const flushed = () => new Promise((r) => setImmediate(r));

function book(opts: { maxEntries?: number; ttlMs?: number; answer?: (commands: string[]) => Promise<string> } = {}) {
  const batches: string[][] = [];
  const warnings: Array<Record<string, unknown>> = [];
  const routes = new EdgeRoutes({
    mapFile: MAP,
    domain: 'Nodes.Test',
    ttlMs: opts.ttlMs ?? 1000,
    maxEntries: opts.maxEntries,
    logger: loggerInto(warnings, 'warn'),
    send: (commands) => {
      batches.push(commands);
      return opts.answer ? opts.answer(commands) : Promise.resolve('\n');
    },
  });
  return { routes, batches, warnings, sent: () => batches.flat() };
}

describe('EdgeRoutes', () => {
  it('adds a host once, sets it when its forward changes, and knows its job whatever the case', async () => {
    const { routes, sent } = book();
    routes.learn('abc-80', 'AbC', '10.0.0.1:20001', 0);
    routes.learn('abc-80', 'aBc', '10.0.0.1:20001', 1);
    routes.learn('abc-80', 'abc', '10.0.0.1:20002', 2);
    await flushed();
    expect(sent()).toEqual([`add map ${MAP} abc-80.nodes.test 10.0.0.1:20001`, `set map ${MAP} abc-80.nodes.test 10.0.0.1:20002`]);
    expect(routes.size).toBe(1);
    expect(routes.jobOf('abc-80.nodes.test')).toBe('abc');
    expect(routes.jobOf('other.nodes.test')).toBeUndefined();
  });

  it('moves a host to another job with a set', async () => {
    const { routes, sent } = book();
    routes.learn('abc-80', 'abc', '10.0.0.1:20001');
    routes.learn('abc-80', 'xyz', '10.0.0.1:20001');
    await flushed();
    expect(sent()).toEqual([`add map ${MAP} abc-80.nodes.test 10.0.0.1:20001`, `set map ${MAP} abc-80.nodes.test 10.0.0.1:20001`]);
    expect(routes.jobOf('abc-80.nodes.test')).toBe('xyz');
    expect(routes.jobCount).toBe(1);
    routes.dropJob('abc');
    await flushed();
    expect(routes.size).toBe(1);
  });

  it('never puts a word the runtime API would split into the map', async () => {
    const { routes, sent } = book();
    routes.learn('a b', 'abc', '10.0.0.1:20001');
    routes.learn('abc-80', 'abc', '10.0.0.1:20001; clear map x');
    await flushed();
    expect(sent()).toEqual([]);
    expect(routes.size).toBe(0);
  });

  it("drops every host of a job, and only that job's", async () => {
    const { routes, sent } = book();
    routes.learn('abc-80', 'abc', '10.0.0.1:20001');
    routes.learn('abc-81', 'abc', '10.0.0.1:20002');
    routes.learn('xyz-80', 'xyz', '10.0.0.2:20001');
    await flushed();
    routes.dropJob('ABC');
    routes.dropJob('nosuchjob');
    await flushed();
    expect(sent().slice(3)).toEqual([`del map ${MAP} abc-80.nodes.test`, `del map ${MAP} abc-81.nodes.test`]);
    expect(routes.size).toBe(1);
    expect(routes.jobOf('abc-80.nodes.test')).toBeUndefined();
    // Learned again after the drop: added anew.
    routes.learn('abc-80', 'abc', '10.0.0.1:20001');
    await flushed();
    expect(sent().at(-1)).toBe(`add map ${MAP} abc-80.nodes.test 10.0.0.1:20001`);
    routes.dropHost('nosuch.nodes.test');
    routes.dropHost('xyz-80.nodes.test');
    routes.dropJob('xyz');
    await flushed();
    expect(sent().slice(-1)).toEqual([`del map ${MAP} xyz-80.nodes.test`]);
    expect(routes.size).toBe(1);
  });

  it('keeps a job known while one of its hosts is', async () => {
    const { routes, sent } = book();
    routes.learn('abc-80', 'abc', '10.0.0.1:20001');
    routes.learn('abc-81', 'abc', '10.0.0.1:20002');
    routes.dropHost('abc-80.nodes.test');
    routes.dropJob('abc');
    await flushed();
    expect(sent().slice(2)).toEqual([`del map ${MAP} abc-80.nodes.test`, `del map ${MAP} abc-81.nodes.test`]);
    expect(routes.size).toBe(0);
    expect(routes.jobCount).toBe(0);
  });

  it('makes room by dropping the oldest host at its bound', async () => {
    const { routes, sent } = book({ maxEntries: 2 });
    routes.learn('a-80', 'a', '10.0.0.1:1');
    routes.learn('b-80', 'b', '10.0.0.1:2');
    routes.learn('a-80', 'a', '10.0.0.1:3'); // a change, not a new entry: nothing dropped
    routes.learn('c-80', 'c', '10.0.0.1:4');
    await flushed();
    expect(sent()).toEqual([
      `add map ${MAP} a-80.nodes.test 10.0.0.1:1`,
      `add map ${MAP} b-80.nodes.test 10.0.0.1:2`,
      `set map ${MAP} a-80.nodes.test 10.0.0.1:3`,
      `del map ${MAP} b-80.nodes.test`,
      `add map ${MAP} c-80.nodes.test 10.0.0.1:4`,
    ]);
    expect(routes.size).toBe(2);
  });

  it('sweeps hosts older than the TTL, oldest first, and no others', async () => {
    const { routes, sent } = book({ ttlMs: 1000 });
    routes.learn('a-80', 'a', '10.0.0.1:1', 0);
    routes.learn('b-80', 'b', '10.0.0.1:2', 500);
    routes.learn('c-80', 'c', '10.0.0.1:3', 900);
    routes.sweep(999);
    routes.sweep(1500);
    await flushed();
    expect(sent().slice(3)).toEqual([`del map ${MAP} a-80.nodes.test`, `del map ${MAP} b-80.nodes.test`]);
    expect(routes.size).toBe(1);
  });

  it('sends changes of one moment in one batch, in order, and at most 256 a batch', async () => {
    const { routes, batches } = book();
    for (let i = 0; i < 300; i++) routes.learn(`j${i}-80`, `j${i}`, '10.0.0.1:1');
    await flushed();
    await flushed();
    expect(batches.map((b) => b.length)).toEqual([256, 44]);
    expect(batches[0][0]).toBe(`add map ${MAP} j0-80.nodes.test 10.0.0.1:1`);
    expect(batches[1][43]).toBe(`add map ${MAP} j299-80.nodes.test 10.0.0.1:1`);
    routes.learn('k-80', 'k', '10.0.0.1:1');
    await flushed();
    expect(batches).toHaveLength(3);
  });

  it('sends one batch at a time: what comes meanwhile waits for it, together', async () => {
    let inFlight = 0;
    let most = 0;
    const { routes, batches } = book({
      answer: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        return '';
      },
    });
    routes.learn('a-80', 'a', '10.0.0.1:1');
    await flushed();
    routes.learn('b-80', 'b', '10.0.0.1:2');
    await flushed();
    routes.learn('c-80', 'c', '10.0.0.1:3');
    await new Promise((r) => setTimeout(r, 100));
    expect(most).toBe(1);
    expect(batches.map((b) => b.length)).toEqual([1, 2]);
  });

  it('logs what HAProxy refuses, not what it did or did not find', async () => {
    const { routes, warnings } = book({ answer: async () => '\n  Done.  \nKey not found.\n   \n\n' });
    routes.learn('a-80', 'a', '10.0.0.1:1');
    await flushed();
    await flushed();
    expect(warnings).toEqual([]);
    const refusing = book({ answer: async () => 'Unknown map identifier. Please use #<id> or <file>.\nNot Done.\nDone. Or not\nKey not found. Sorry\n' });
    refusing.routes.learn('a-80', 'a', '10.0.0.1:1');
    await flushed();
    await flushed();
    // The first three lines that are not a plain success.
    expect(refusing.warnings.map((w) => [w.msg, w.answer])).toEqual([
      ['edge proxy refused a change of its map', ['Unknown map identifier. Please use #<id> or <file>.', 'Not Done.', 'Done. Or not']],
    ]);
  });

  it('after a batch that failed, forgets every host and clears the map before anything else', async () => {
    let fail = true;
    const { routes, batches, warnings } = book({ answer: async () => (fail ? Promise.reject(new Error('connection refused')) : '') });
    routes.learn('a-80', 'a', '10.0.0.1:1');
    await flushed();
    await flushed();
    expect(warnings.map((w) => [w.msg, w.err, w.changes])).toEqual([
      ['edge proxy map not changed; its hosts are served by the gateway until it is cleared', 'connection refused', 1],
    ]);
    expect(routes.size).toBe(0);
    fail = false;
    routes.learn('b-80', 'b', '10.0.0.1:2');
    await new Promise((r) => setTimeout(r, 1100));
    expect(batches.slice(1)).toEqual([[`clear map ${MAP}`, `add map ${MAP} b-80.nodes.test 10.0.0.1:2`]]);
    expect(routes.size).toBe(1);
  });

  it('sends nothing once closed, and starts empty after a reset', async () => {
    const { routes, sent } = book();
    routes.learn('a-80', 'a', '10.0.0.1:1');
    routes.reset();
    expect(routes.size).toBe(0);
    expect(routes.jobCount).toBe(0);
    routes.learn('a-80', 'a', '10.0.0.1:1');
    routes.close();
    routes.learn('b-80', 'b', '10.0.0.1:2');
    await flushed();
    expect(sent()).toEqual([]);
    expect(routes.size).toBe(0);
  });
});

describe('connectionsWithin', () => {
  it('keeps what fits the open files limit, and lowers what does not, saying so', () => {
    const warnings: Array<Record<string, unknown>> = [];
    const logger = loggerInto(warnings, 'warn');
    expect(connectionsWithin(4096, undefined, logger)).toBe(4096);
    expect(connectionsWithin(4096, 20_000, logger)).toBe(4096);
    expect(connectionsWithin(4096, 2 * 4096 + 64, logger)).toBe(4096);
    expect(warnings).toEqual([]);
    expect(connectionsWithin(4096, 2 * 4096 + 63, logger)).toBe(4095);
    expect(connectionsWithin(4096, 1024, logger)).toBe(480);
    expect(connectionsWithin(4096, 40, logger)).toBe(16);
    expect(warnings.map((w) => [w.wanted, w.fits, w.hardLimit])).toEqual([
      [4096, 4095, 8255],
      [4096, 480, 1024],
      [4096, 16, 40],
    ]);
  });
});
