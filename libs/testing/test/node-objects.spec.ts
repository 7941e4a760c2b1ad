import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Docker from 'dockerode';
import { removeNodeObjects, sweepOrphans, testNodeId, waitFor } from '../src';

const docker = new Docker({ socketPath: '/var/run/docker.sock' });

it("removes a killed process's node objects: the network its test node id labels is gone once the process is", async () => {
  // The child makes a node id and a network labelled with it (as a node agent would), then is killed before any cleanup.
  const src = path.resolve(__dirname, '../src/node-objects.ts');
  const script = `import('dockerode').then(async ({ default: Docker }) => {
    const { testNodeId } = await import('${src}');
    const id = testNodeId('sweep');
    await new Docker({ socketPath: '/var/run/docker.sock' }).createNetwork({ Name: 'ocg-sweep-' + id, Labels: { 'ocg.node': id } });
    console.log(id);
    setInterval(() => undefined, 1000);
  })`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const id = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const networks = () => docker.listNetworks({ filters: JSON.stringify({ label: [`ocg.node=${id}`] }) });
  try {
    expect(await networks()).toHaveLength(1);
    child.kill('SIGKILL');
    await waitFor(async () => (await networks()).length === 0, { timeoutMs: 30_000, intervalMs: 200, what: 'the sweeper to remove the network' });
  } finally {
    child.kill('SIGKILL');
    await removeNodeObjects(id);
  }
}, 60_000);

it('sweeps the objects of test node ids whose owner is gone (an earlier boot, a dead process), and nothing else', async () => {
  const docker = new Docker({ socketPath: '/var/run/docker.sock' });
  const tag = randomBytes(2).toString('hex');
  const live = testNodeId(`live${tag}`);
  const [, boot, pid] = /\.([0-9a-f]{6})\.(\d+)\./.exec(live)!;
  expect(Number(pid)).toBe(process.pid);
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  const otherBoot = boot === 'aaaaaa' ? 'bbbbbb' : 'aaaaaa';
  const ids = { live, deadPid: `t-dead${tag}.${boot}.${dead}.0000`, earlierBoot: `t-boot${tag}.${otherBoot}.${process.pid}.0000`, noOwner: `t-old${tag}-2f3c4e` };
  for (const id of Object.values(ids)) await docker.createNetwork({ Name: `sweep-${id}`, Labels: { 'ocg.managed': 'true', 'ocg.node': id } });
  try {
    const swept = await sweepOrphans(docker);
    expect(swept).not.toContain(ids.live);
    expect(swept).not.toContain(ids.noOwner);
    const left = (await docker.listNetworks()).map((n) => n.Name);
    expect(left).toEqual(expect.arrayContaining([`sweep-${ids.live}`, `sweep-${ids.noOwner}`]));
    expect(left).not.toContain(`sweep-${ids.deadPid}`);
    expect(left).not.toContain(`sweep-${ids.earlierBoot}`);
  } finally {
    await removeNodeObjects(ids.live, docker);
    await removeNodeObjects(ids.noOwner, docker);
  }
});
