/** What one job may take of the node: the market's limits and policy in the container spec, GPUs per op, and on the real engine. */
import type { JobContainerLimits } from '@ocg/contracts';
import { normalize, type JobDefinition, type NormalizedRunOp } from '@ocg/job-definition';
import { containerSpec } from '../src/docker/container-spec';
import { jobLimits, type NodeLimits } from '../src/docker/job-limits';
import { LABEL } from '../src/docker/labels';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, startTestAgent, waitFor, type TestAgent } from './support/harness';

const market: JobContainerLimits = { cpus: 0.5, memoryBytes: 64 * 1024 ** 2, pids: 64, diskBytes: 2 * 1024 ** 3, user: '1000:1000', readOnlyRootFilesystem: true };
const twoGpus: NodeLimits = { memoryBytes: 8 * 1024 ** 3, pidsLimit: 4096, cpus: 2, gpuDevices: ['0', '1'], diskQuota: true };

function specsFor(def: object, node: NodeLimits, limits?: JobContainerLimits) {
  const job = normalize(def as JobDefinition);
  const perJob = jobLimits(node, 'JobAddr1', job, limits);
  return job.ops.map((op) => containerSpec({ node: 'n', job: 'JobAddr1', op: op as NormalizedRunOp, group: 'g', attempt: 0, network: 'net', limits: perJob }));
}

describe('the container spec of a job', () => {
  it('gives each GPU op of a job its own GPU on a node reporting 2 GPUs, not every GPU to each', () => {
    const gpu = { args: { gpu: true } };
    const specs = specsFor(definition([runOp('a', 'true', gpu), runOp('b', 'true', gpu), runOp('cpu', 'true'), runOp('c', 'true', gpu)]), twoGpus, market);
    const devices = specs.map((s) => s.HostConfig?.DeviceRequests?.[0]?.DeviceIDs);
    expect(devices[2]).toBeUndefined();
    expect(devices[0]).toHaveLength(1);
    expect(devices[1]).toHaveLength(1);
    expect(new Set([devices[0]![0], devices[1]![0]])).toEqual(new Set(['0', '1']));
    expect(devices[3]).toEqual(devices[0]);
    expect(specs.every((s) => s.HostConfig?.DeviceRequests?.every((r) => r.Count === undefined) ?? true)).toBe(true);
  });

  it("applies the market's CPU, memory, pids and disk limits, within the node's own, and its user and read-only root", () => {
    const [spec] = specsFor(definition([runOp('a', 'true')]), { ...twoGpus, cpus: 1, memoryBytes: 32 * 1024 ** 2 }, { ...market, cpus: 3 });
    expect(spec.User).toBe('1000:1000');
    expect(spec.HostConfig).toMatchObject({
      NanoCpus: 1e9,
      Memory: 32 * 1024 ** 2,
      MemorySwap: 32 * 1024 ** 2,
      PidsLimit: 64,
      StorageOpt: { size: String(2 * 1024 ** 3) },
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': expect.stringContaining('size=') },
    });
  });

  it('sets no writable-layer size where the storage driver cannot take one, and nothing of a policy without one', () => {
    const [spec] = specsFor(definition([runOp('a', 'true')]), { ...twoGpus, diskQuota: false });
    expect(spec.HostConfig?.StorageOpt).toBeUndefined();
    expect(spec.HostConfig?.ReadonlyRootfs).toBeUndefined();
    expect(spec.HostConfig?.NanoCpus).toBeUndefined();
    expect(spec.User).toBeUndefined();
  });
});

describe('on the real engine', () => {
  const node = newNodeId('limits');
  let t: TestAgent;

  beforeAll(async () => {
    await prepareEngine();
    t = await startTestAgent(node);
  });

  afterAll(async () => {
    await t?.close();
    const left = await leftovers(t.docker, node);
    await removeEverything(t.docker, node);
    expect(left).toEqual([]);
  });

  it("runs the containers as the market's user on a read-only root with a writable /tmp, within its CPU and memory", async () => {
    const script = 'echo uid=$(id -u); (touch /root-file 2>/dev/null && echo root=rw) || echo root=ro; touch /tmp/x && echo tmp=rw; sleep 2';
    const results = { uid: 'uid=(\\d+)', root: 'root=(\\w+)', tmp: 'tmp=(\\w+)' };
    const { job } = await t.submit(definition([runOp('probe', script, { results })]), { containerLimits: market });
    const running = await waitFor(async () => {
      const [c] = await t.docker.listContainers({ filters: JSON.stringify({ label: [`${LABEL.job}=${job}`] }) });
      return c;
    }, 'the op container');
    const inspected = await t.docker.getContainer(running.Id).inspect();
    expect(inspected.HostConfig).toMatchObject({ NanoCpus: 0.5e9, Memory: 64 * 1024 ** 2, PidsLimit: 64, ReadonlyRootfs: true });
    const summary = await t.waitEnded(job);
    expect(summary).toMatchObject({ state: 'completed' });
    expect(summary.results.probe).toEqual({ uid: ['1000'], root: ['ro'], tmp: ['rw'] });
  });
});
