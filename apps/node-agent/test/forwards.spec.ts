/** Endpoint forwards (ADR 0092): a ready endpoint's port forwarded by the kernel, for this host and the admitted machines only. */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config';
import { request } from './support/http';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, serve, startTestAgent, waitFor, type TestAgent } from './support/harness';
import { startLanPeer, type LanPeer } from './support/lan-peer';

const exec = promisify(execFile);

/** The node's rules for a job (`ocg-fwd:<node>:<job>`), in every table they go in. */
async function forwardRules(tag: string): Promise<string[]> {
  const lines: string[] = [];
  for (const table of ['nat', 'filter']) lines.push(...(await exec('iptables', ['-t', table, '-S'])).stdout.split('\n'));
  return lines.filter((line) => line.replace(/"/g, '').includes(`--comment ${tag}`));
}

/** What the agent last reported of an endpoint's forward. */
const forwardOf = (t: TestAgent, job: string, port = 8080): string | undefined =>
  t.reporter.endpoints.filter((e) => e.job === job && e.endpoint.port === port).at(-1)?.endpoint.forward;

const get = (peer: LanPeer, forward: string) => {
  const [address, port] = forward.split(':');
  return peer.sh(`printf 'GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n' | busybox nc -w 3 ${address} ${port}`);
};

let gateway: LanPeer;
let stranger: LanPeer;
const base = 20_000 + Math.floor(Math.random() * 400) * 20;

beforeAll(async () => {
  await prepareEngine();
  gateway = await startLanPeer();
  stranger = await startLanPeer({ defaultRoute: true });
});

afterAll(async () => {
  await gateway?.stop();
  await stranger?.stop();
});

const forwardEnv = () => ({
  FORWARD_PORTS: `${base}-${base + 19}`,
  FORWARD_ADDRESS: gateway.hostAddress,
  FORWARD_FROM: `${gateway.address}/32`,
  HEALTH_CONTINUOUS_INTERVAL_MS: '300',
  HEALTH_FAILURES_TO_OFFLINE: '1',
});

describe('a node with endpoint forwards', () => {
  const node = newNodeId('fwd');
  let t: TestAgent;
  // Another process holds the range's first port: the agent must skip it.
  let holder: net.Server;

  beforeAll(async () => {
    holder = net.createServer().listen(base, gateway.hostAddress);
    await once(holder, 'listening');
    t = await startTestAgent(node, forwardEnv());
  });

  afterAll(async () => {
    holder?.close();
    await t?.close();
    const left = await leftovers(t.docker, node);
    await removeEverything(t.docker, node);
    expect(left).toEqual([]);
    expect(await forwardRules(`ocg-fwd:${node}:`)).toEqual([]);
  });

  it('forwards a ready endpoint to its container, for this host and the admitted machine only, until the job ends', async () => {
    const { job } = await t.submit(definition([runOp('web', serve(8080, 'forwarded'), { args: { expose: [8080] } })]));
    const forward = await waitFor(() => forwardOf(t, job), 'the endpoint forward');
    const port = Number(forward.split(':')[1]);
    expect(forward.split(':')[0]).toBe(gateway.hostAddress);
    expect(port).toBeGreaterThan(base);
    expect(port).toBeLessThanOrEqual(base + 19);
    const lower = job.toLowerCase();
    expect(t.reporter.endpoints.filter((e) => e.job === job).at(-1)?.endpoint.hosts).toEqual([lower, `${lower}-8080`, `${lower}-0-8080`]);

    // A gateway on this host, one on the admitted machine; not a machine outside FORWARD_FROM.
    expect((await request(`http://${forward}/`, { host: 'x' })).body).toBe('forwarded\n');
    expect(await get(gateway, forward)).toContain('forwarded');
    expect(await get(stranger, forward)).not.toContain('forwarded');

    expect((await forwardRules(`ocg-fwd:${node}:${job}`)).length).toBeGreaterThan(0);
    await t.agent.executor.stopAndWait(job, 'test done');
    expect(await forwardRules(`ocg-fwd:${node}:${job}`)).toEqual([]);
    await expect(request(`http://${forward}/`, { host: 'x' })).rejects.toThrow();
  });

  it("never forwards a private op's ports: only the ingress checks their secret label", async () => {
    const label = 'kq7xz2mbw4ra';
    const { job } = await t.submit(
      definition([runOp('site', serve(8080, 'public'), { args: { expose: 8080 } }), runOp('admin', serve(9090, 'private'), { args: { expose: 9090, private: true } })]),
      { prepare: (d) => ({ ...d, ops: d.ops.map((op) => (op.id === 'admin' && op.type === 'container/run' ? { ...op, args: { ...op.args, private_label: label } } : op)) }) },
    );
    await waitFor(() => forwardOf(t, job), 'the public endpoint forward');
    await t.waitOp(job, 'admin', (o) => o.endpoints[0]?.status === 'ONLINE');
    const reports = t.reporter.endpoints.filter((e) => e.job === job && e.op === 'admin');
    expect(reports.at(-1)?.endpoint).toMatchObject({ status: 'ONLINE', hosts: [`${job.toLowerCase()}-${label}`, `${job.toLowerCase()}-${label}-9090`] });
    expect(reports.map((e) => e.endpoint.forward)).toEqual(reports.map(() => undefined));
    expect((await forwardRules(`ocg-fwd:${node}:${job}`)).filter((rule) => /[: ]9090\b/.test(rule))).toEqual([]);
    await t.agent.executor.stopAndWait(job, 'test done');
  });

  it('takes the forward away while a continuous check fails, and forwards on another port once it passes again', async () => {
    const check = { type: 'http', path: '/health', method: 'GET', expected_status: 200, continuous: true };
    const script = `mkdir -p /w && echo up > /w/health && echo fine > /w/index.html && httpd -f -p 8080 -h /w`;
    const { job } = await t.submit(definition([runOp('web', script, { args: { expose: [{ port: 8080, health_checks: [check] }] } })]));
    const first = await waitFor(() => forwardOf(t, job), 'the endpoint forward');
    const container = (await t.docker.listContainers({ filters: JSON.stringify({ label: [`ocg.job=${job}`] }) }))[0];
    const sh = async (line: string) => {
      const run = await t.docker.getContainer(container.Id).exec({ Cmd: ['sh', '-c', line] });
      await run.start({});
    };

    await sh('rm /w/health');
    await waitFor(() => forwardOf(t, job) === undefined || undefined, 'the forward to go');
    expect(await get(gateway, first)).not.toContain('fine');
    await sh('echo up > /w/health');
    const second = await waitFor(() => forwardOf(t, job), 'the forward to come back');
    expect(second).not.toBe(first);
    expect(await get(gateway, second)).toContain('fine');
    await t.agent.executor.stopAndWait(job, 'test done');
  });
});

describe('a restarted node with endpoint forwards', () => {
  const node = newNodeId('fwd-restart');
  const agents: TestAgent[] = [];
  const other = `ocg-fwd:${newNodeId('fwd-other')}:job`;
  const otherRule = ['DOCKER-USER', '-s', '192.0.2.254/32', '-m', 'comment', '--comment', other, '-j', 'RETURN'];

  afterAll(async () => {
    for (const t of agents) await t.close();
    await exec('iptables', ['-D', ...otherRule]).catch(() => undefined);
    const left = await leftovers(agents[0].docker, node);
    await removeEverything(agents[0].docker, node);
    expect(left).toEqual([]);
  });

  it("takes back its predecessor's forwards of adopted jobs as they are, ends those of jobs it did not adopt, and leaves another node's alone", async () => {
    await exec('iptables', ['-I', ...otherRule]);
    const first = await startTestAgent(node, forwardEnv());
    agents.push(first);
    const { job } = await first.submit(definition([runOp('web', serve(8080, 'adopted'), { args: { expose: [8080] } })]));
    const before = await waitFor(() => forwardOf(first, job), 'the endpoint forward');
    await first.close();
    // The kernel keeps forwarding while no agent runs.
    expect(await get(gateway, before)).toContain('adopted');
    // A forward of this node's whose job is gone meanwhile (its rule as the agent writes them).
    const gone = `ocg-fwd:${node}:gonejob`;
    const goneRule = ['-t', 'nat', '-I', 'OUTPUT', '-d', `${gateway.hostAddress}/32`, '-p', 'tcp', '-m', 'tcp', '--dport', String(base + 19)];
    await exec('iptables', [...goneRule, '-m', 'comment', '--comment', gone, '-j', 'DNAT', '--to-destination', '172.31.255.254:80']);

    const second = await startTestAgent(node, forwardEnv());
    agents.push(second);
    expect(second.agent.adopted).toEqual([job]);
    // Reported at once with the same port: the gateway's route does not change, and visitors never lose the endpoint.
    expect(await waitFor(() => forwardOf(second, job), 'the adopted endpoint forward')).toBe(before);
    expect(await get(gateway, before)).toContain('adopted');
    expect(await get(stranger, before)).not.toContain('adopted');
    expect(await forwardRules(gone)).toEqual([]);
    expect(await forwardRules(other)).toHaveLength(1);
    await second.agent.executor.stopAndWait(job, 'test done');
    expect(await forwardRules(`ocg-fwd:${node}:`)).toEqual([]);
  });
});

describe('forward settings', () => {
  it('refuses a loopback forward address and a port range out of bounds, naming the setting', () => {
    expect(() => loadConfig({ FORWARD_ADDRESS: '127.0.0.1' })).toThrow(/FORWARD_ADDRESS.*loopback/s);
    expect(() => loadConfig({ FORWARD_PORTS: '80-90' })).toThrow(/FORWARD_PORTS/);
    expect(() => loadConfig({ FORWARD_PORTS: '3000-2000' })).toThrow(/FORWARD_PORTS/);
    expect(() => loadConfig({ FORWARD_FROM: 'gateway' })).toThrow(/FORWARD_FROM/);
    expect(loadConfig({ FORWARD_PORTS: '20000-20999' }).FORWARD_PORTS).toEqual({ first: 20000, last: 20999 });
    // Set and empty, as compose and the stack pass them when off.
    expect(loadConfig({ FORWARD_PORTS: '', FORWARD_ADDRESS: '', FORWARD_FROM: '' })).toMatchObject({ FORWARD_PORTS: undefined, FORWARD_ADDRESS: undefined, FORWARD_FROM: [] });
  });
});
