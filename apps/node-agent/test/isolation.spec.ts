/** Hardening of job networks: no way to the host, the LAN, private or link-local (metadata) addresses. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { listen, type RunningServer } from '@ocg/http';
import { hostSubnets } from '../src/docker/isolation';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, startTestAgent, type TestAgent } from './support/harness';
import { startLanPeer, type LanPeer } from './support/lan-peer';

const exec = promisify(execFile);
// nc, not wget: the static busybox's wget crashes on an IP literal here.
const reach = (name: string, target: string, port: number, expect: string) =>
  `if printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${target} ${port} | grep -q '${expect}'; then echo ${name}=reached; else echo ${name}=blocked; fi`;
const PROBE = (hostPort: number, lan: LanPeer) =>
  [`gw=$(ip route | awk '/default/ {print $3}')`, reach('host', '$gw', hostPort, 'the host'), reach('lan', lan.address, lan.port, 'lan-peer')].join('; ');

async function jobRules(job: string): Promise<string[]> {
  const { stdout } = await exec('iptables', ['-S']);
  return stdout.split('\n').filter((line) => line.includes(`ocg-job-${job}`));
}

let host: RunningServer;
let lan: LanPeer;

beforeAll(async () => {
  await prepareEngine();
  host = await listen((_req, res) => res.end('the host'), { host: '0.0.0.0', port: 0 });
  lan = await startLanPeer();
});

afterAll(async () => {
  await host?.close();
  await lan?.stop();
});

describe.each([
  ['isolated', 'true', 'blocked'],
  ['not isolated', 'false', 'reached'],
])('a job network %s', (_name, isolation, expected) => {
  const node = newNodeId(`iso-${isolation}`);
  let t: TestAgent;

  beforeAll(async () => {
    t = await startTestAgent(node, { NETWORK_ISOLATION: isolation });
  });

  afterAll(async () => {
    await t?.close();
    const left = await leftovers(t.docker, node);
    await removeEverything(t.docker, node);
    expect(left).toEqual([]);
  });

  it(`${expected === 'blocked' ? 'cannot' : 'can'} open a connection to the host or a machine of its LAN`, async () => {
    const results = { host: 'host=(\\w+)', lan: 'lan=(\\w+)' };
    const { job } = await t.submit(definition([runOp('probe', `${PROBE(host.port, lan)}; sleep 2`, { results })]));
    await t.waitOp(job, 'probe', 'running');
    if (isolation === 'true') {
      const rules = await jobRules(job);
      expect(rules.some((r) => r.startsWith('-A INPUT') && r.includes('DROP'))).toBe(true);
      for (const range of ['169.254.0.0/16', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', ...hostSubnets()]) {
        expect(rules.some((r) => r.startsWith('-A DOCKER-USER') && r.includes(`-d ${range}`) && r.includes('DROP'))).toBe(true);
      }
    }
    await t.agent.executor.whenEnded(job);
    expect(t.agent.executor.results(job).probe).toEqual({ host: [expected], lan: [expected] });
    expect(await jobRules(job)).toEqual([]);
  });
});

describe('isolation of adopted jobs', () => {
  const node = newNodeId('iso-adopt');
  const agents: TestAgent[] = [];

  afterAll(async () => {
    for (const t of agents) await t.close();
    const left = await leftovers(agents[0].docker, node);
    await removeEverything(agents[0].docker, node);
    expect(left).toEqual([]);
  });

  it('re-applies the rules when a restarted agent adopts a job (a reboot or firewall reload may have flushed them)', async () => {
    const first = await startTestAgent(node);
    agents.push(first);
    const { job } = await first.submit(definition([runOp('work', 'sleep 600')]));
    await first.waitOp(job, 'work', 'running');
    const rules = await jobRules(job);
    expect(rules.length).toBeGreaterThan(1);
    await first.close();
    for (const rule of rules) await exec('iptables', ['-D', ...rule.slice(3).split(' ')]);
    expect(await jobRules(job)).toEqual([]);

    const second = await startTestAgent(node);
    agents.push(second);
    expect(second.agent.adopted).toEqual([job]);
    expect((await jobRules(job)).sort()).toEqual([...rules].sort());
    await second.agent.executor.stopAndWait(job, 'test done');
    expect(await jobRules(job)).toEqual([]);
  });
});

describe('an agent that cannot isolate job networks', () => {
  const node = newNodeId('iso-none');
  const noIptables = { IPTABLES: '/nonexistent/iptables' };

  it('refuses to start by default, naming the setting that turns isolation off', async () => {
    await expect(startTestAgent(node, noIptables)).rejects.toThrow(/job networks cannot be isolated.*NETWORK_ISOLATION=false/);
  });

  it('starts when the operator turned isolation off explicitly', async () => {
    const t = await startTestAgent(node, { ...noIptables, NETWORK_ISOLATION: 'false' });
    await t.close();
  });
});
