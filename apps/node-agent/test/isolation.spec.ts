/** Hardening of job networks: no way to the host or to link-local (metadata) addresses. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { listen, type RunningServer } from '@ocg/http';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, startTestAgent, type TestAgent } from './support/harness';

const exec = promisify(execFile);
// nc, not wget: the static busybox's wget crashes on an IP literal here.
const PROBE = (port: number) =>
  `gw=$(ip route | awk '/default/ {print $3}'); if printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 $gw ${port} | grep -q 'the host'; then echo reach=host; else echo reach=blocked; fi`;

async function jobRules(job: string): Promise<string[]> {
  const { stdout } = await exec('iptables', ['-S']);
  return stdout.split('\n').filter((line) => line.includes(`ocg-job-${job}`));
}

describe.each([
  ['isolated', 'true', 'blocked'],
  ['not isolated', 'false', 'host'],
])('a job network %s', (_name, isolation, expected) => {
  const node = newNodeId(`iso-${isolation}`);
  let t: TestAgent;
  let host: RunningServer;

  beforeAll(async () => {
    await prepareEngine();
    host = await listen((_req, res) => res.end('the host'), { host: '0.0.0.0', port: 0 });
    t = await startTestAgent(node, { NETWORK_ISOLATION: isolation });
  });

  afterAll(async () => {
    await t?.close();
    await host?.close();
    const left = await leftovers(t.docker, node);
    await removeEverything(t.docker, node);
    expect(left).toEqual([]);
  });

  it(`${expected === 'blocked' ? 'cannot' : 'can'} open a connection to the host`, async () => {
    const { job } = await t.submit(definition([runOp('probe', `${PROBE(host.port)}; sleep 2`, { results: { reach: 'reach=(\\w+)' } })]));
    await t.waitOp(job, 'probe', 'running');
    if (isolation === 'true') {
      const rules = await jobRules(job);
      expect(rules.some((r) => r.startsWith('-A INPUT') && r.includes('DROP'))).toBe(true);
      expect(rules.some((r) => r.startsWith('-A DOCKER-USER') && r.includes('169.254.0.0/16') && r.includes('DROP'))).toBe(true);
    }
    await t.agent.executor.whenEnded(job);
    expect(t.agent.executor.results(job).probe).toEqual({ reach: [expected] });
    expect(await jobRules(job)).toEqual([]);
  });
});
