/** Followed logs: resuming by seq, lines missed from the ring, `since`, a slow reader's cost to the node, and the follower cap. */
import http from 'node:http';
import net from 'node:net';
import type { NodeLogLine, NodeLogStreamItem } from '@ocg/contracts';
import { generateWallet, type Wallet } from '@ocg/auth';
import { closeAgentAndCheck, definition, newNodeId, prepareEngine, runOp, signedHeader, startTestAgent, waitFor, type TestAgent } from './support/harness';
import { request } from './support/http';

const node = newNodeId('follow');
const nodeAddress = generateWallet().address;
let t: TestAgent;
let job: string;
let poster: Wallet;

const TICKER = 'i=0; while true; do echo "line $i"; i=$((i+1)); sleep 0.02; done';
/** After a moment (a reader connects first), 5000 lines of 8000 bytes: 40 MB, far more than the socket buffers hold. */
const FLOOD = 'sleep 2; yes "$(head -c 8000 /dev/zero | tr "\\0" x)" | head -n 5000; echo flooded; sleep 3600';

beforeAll(async () => {
  await prepareEngine();
  t = await startTestAgent(node, { NODE_ADDRESS: nodeAddress, LOG_MAX_BYTES: String(1024 * 1024), LOG_FOLLOWERS_PER_JOB: '3', LOG_FOLLOW_HEARTBEAT_SECONDS: '1' });
  ({ job, wallet: poster } = await t.submit(definition([runOp('ticker', TICKER, { execution: { group: 'all' } }), runOp('flood', FLOOD, { execution: { group: 'all' } })])));
  await t.waitOp(job, 'flood', 'running');
});

afterAll(() => closeAgentAndCheck(t, node, job));

const auth = () => ({ authorization: signedHeader(poster, nodeAddress, job) });
const path = (op: string, query: string) => `/job/${job}/ops/${op}/logs?${query}`;
const isLine = (item: NodeLogStreamItem): item is NodeLogLine => 'seq' in item;

interface Follow {
  items: NodeLogStreamItem[];
  status: Promise<number>;
  close(): void;
}

/** A follow that collects what it reads until closed. */
function follow(query: string, op = 'ticker'): Follow {
  const items: NodeLogStreamItem[] = [];
  let req: http.ClientRequest;
  const status = new Promise<number>((resolve, reject) => {
    req = http.get(`${t.agent.api.url}${path(op, query)}`, { headers: auth(), agent: false }, (res) => {
      resolve(res.statusCode ?? 0);
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        const parts = (buffered + d).split('\n');
        buffered = parts.pop() ?? '';
        for (const p of parts) if (p) items.push(JSON.parse(p) as NodeLogStreamItem);
      });
      res.on('error', () => undefined);
    });
    req.on('error', reject);
  });
  return { items, status, close: () => req.destroy() };
}

describe('a slow reader', () => {
  it('costs the node no more than a socket buffer while the op writes 40 MB, and learns what it missed once it reads', async () => {
    // A reader that never reads: the server side's own buffer is what the node holds for it.
    const sockets: net.Socket[] = [];
    const track = (s: net.Socket) => sockets.push(s);
    t.agent.api.server.on('connection', track);
    const client = net.connect(t.agent.api.port, '127.0.0.1');
    client.pause();
    const head = `GET ${path('flood', 'follow=true&tail=0')} HTTP/1.1\r\nHost: node\r\nAuthorization: ${auth().authorization}\r\n\r\n`;
    await new Promise<void>((done) => client.write(head, () => done()));
    const server = await waitFor(() => sockets.find((s) => s.remotePort === client.localPort), 'the server side of the socket');
    t.agent.api.server.off('connection', track);
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, server.writableLength)), 5);
    const logs = t.agent.executor.logs(job, 'flood');
    try {
      await waitFor(() => logs.lines().some((l) => l.text === 'flooded'), 'the flood to end', 60_000);
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBeLessThan(256 * 1024);

    let text = '';
    client.setEncoding('utf8');
    client.on('data', (d: string) => (text += d));
    client.resume();
    await waitFor(() => text.includes('"text":"flooded"'), 'the last line to arrive', 30_000);
    client.destroy();
    const items = text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as NodeLogStreamItem);
    const missed = items.filter((i): i is { notice: 'missed'; count: number } => 'notice' in i && i.notice === 'missed');
    expect(missed.length).toBeGreaterThan(0);
    const seqs = items.filter(isLine).map((l) => l.seq);
    // Every seq from the first read to the last is either read or counted as missed, once.
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs.length + missed.reduce((n, m) => n + m.count, 0)).toBe(seqs.at(-1)! - seqs[0] + 1);
  });
});

describe('resuming', () => {
  it('continues after the last seq read: no line repeated, none lost', async () => {
    const first = follow('follow=true');
    await waitFor(() => first.items.filter(isLine).length >= 20, 'twenty lines');
    first.close();
    const read = first.items.filter(isLine);
    const last = read.at(-1)!.seq;
    const again = follow(`follow=true&after=${last}`);
    await waitFor(() => again.items.filter(isLine).length >= 5, 'five more lines');
    again.close();
    const seqs = [...read, ...again.items.filter(isLine)].map((l) => l.seq);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));
    expect(again.items[0]).toMatchObject({ seq: last + 1, text: `line ${Number(read.at(-1)!.text.split(' ')[1]) + 1}` });
  });

  it('says how many lines left the buffer before a resume could send them', async () => {
    const resumed = follow('follow=true&after=3', 'flood');
    await waitFor(() => resumed.items.length >= 2, 'a notice and a line');
    resumed.close();
    const oldest = resumed.items[1] as NodeLogLine;
    expect(resumed.items[0]).toEqual({ notice: 'missed', count: oldest.seq - 4 });
  });

  it('sends a heartbeat on a quiet op', async () => {
    const quiet = follow('follow=true&tail=0', 'flood');
    await waitFor(() => quiet.items.length > 0, 'a heartbeat', 5_000);
    quiet.close();
    expect(quiet.items[0]).toEqual({ notice: 'heartbeat' });
  });

  it('keeps the lines at or after `since`, and after a seq without follow', async () => {
    const lines = t.agent.executor.logs(job, 'ticker').lines();
    const middle = lines[Math.floor(lines.length / 2)];
    const since = JSON.parse((await request(`${t.agent.api.url}${path('ticker', `since=${encodeURIComponent(middle.time)}`)}`, { headers: auth() })).body);
    expect(since.lines[0].seq).toBeLessThanOrEqual(middle.seq);
    expect(since.lines.every((l: NodeLogLine) => Date.parse(l.time) >= Date.parse(middle.time))).toBe(true);
    const after = JSON.parse((await request(`${t.agent.api.url}${path('ticker', `after=${middle.seq}&tail=3`)}`, { headers: auth() })).body);
    expect(after.lines).toHaveLength(3);
    expect(after.lines[0].seq).toBeGreaterThan(middle.seq);
  });

  it('answers 400 for a `since` that is no time', async () => {
    const answer = await request(`${t.agent.api.url}${path('ticker', 'since=yesterday')}`, { headers: auth() });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).message).toMatch(/since/);
  });
});

describe('the follower cap', () => {
  it('answers 429 past LOG_FOLLOWERS_PER_JOB open follows of a job, and takes one again once another closed', async () => {
    const open = [follow('follow=true&tail=0'), follow('follow=true&tail=0', 'flood'), follow('follow=true&tail=0')];
    try {
      expect(await Promise.all(open.map((f) => f.status))).toEqual([200, 200, 200]);
      const refused = await request(`${t.agent.api.url}${path('ticker', 'follow=true')}`, { headers: auth() });
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body)).toMatchObject({
        name: 'TooManyRequestsError',
        message: expect.stringMatching(/already has 3 log followers on this node.*LOG_FOLLOWERS_PER_JOB/),
      });
      open.pop()!.close();
      const next = await waitFor(async () => {
        const again = follow('follow=true&tail=0');
        if ((await again.status) === 200) return again;
        again.close();
        return undefined;
      }, 'a follow to be taken again');
      open.push(next);
    } finally {
      for (const f of open) f.close();
    }
  });
});
