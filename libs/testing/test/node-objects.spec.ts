import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Docker from 'dockerode';
import { removeNodeObjects, waitFor } from '../src';

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
