/** Disk limits by measurement: a job whose volumes or writable layers grow past the market's limits fails, on any storage driver. */
import type { JobContainerLimits } from '@ocg/contracts';
import { diskOverLimit } from '../src/executor/disk-watcher';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, startTestAgent, type TestAgent } from './support/harness';

const MIB = 1024 ** 2;
const market: JobContainerLimits = { cpus: 1, memoryBytes: 64 * MIB, pids: 64, diskBytes: 10 * MIB, volumeBytes: 10 * MIB, user: null, readOnlyRootFilesystem: false };
const write30 = (path: string) => `dd if=/dev/zero of=${path} bs=1048576 count=30 2>/dev/null; sleep 60`;
/**
 * 'over the limit' when the reason is the expected sentence with a reading past the 10 MiB limit and no more than the
 * 30 MiB written (and the file system's overhead), else the reason itself, so a failure shows it.
 */
function overTheLimit(reason: string | null | undefined, sentence: RegExp): string | null | undefined {
  const figure = Number(reason?.match(sentence)?.[1]);
  return figure > 10 && figure < 40 ? 'over the limit' : reason;
}

describe('the reason a job is over its disk limits', () => {
  it('names what was over and both figures', () => {
    expect(diskOverLimit({ containers: [{ op: 'w', bytes: 30 * MIB }], volumeBytes: 0 }, market)).toBe(
      "op w wrote 30 MiB to its container's writable layer, over the market's limit of 10 MiB per container",
    );
    expect(diskOverLimit({ containers: [], volumeBytes: 23 * MIB }, market)).toBe("volume data used 23 MiB, over the market's limit of 10 MiB for a job's volumes");
    expect(diskOverLimit({ containers: [{ op: 'w', bytes: 9 * MIB }], volumeBytes: 9 * MIB }, market)).toBeNull();
    expect(diskOverLimit({ containers: [], volumeBytes: 1024 ** 4 }, { ...market, volumeBytes: undefined })).toBeNull();
  });
});

describe('on the real engine', () => {
  const node = newNodeId('disk');
  let t: TestAgent;

  beforeAll(async () => {
    await prepareEngine();
    // No StorageOpt size even where the driver takes one: the measurement alone must hold the limit.
    t = await startTestAgent(node, { DISK_CHECK_INTERVAL_MS: '300', CONTAINER_DISK_QUOTA: 'false' });
  });

  afterAll(async () => {
    await t?.close();
    const left = await leftovers(t.docker, node);
    await removeEverything(t.docker, node);
    expect(left).toEqual([]);
  });

  it('fails a job whose volumes hold more than the market allows a job', async () => {
    const { job } = await t.submit(
      definition([
        { type: 'container/create-volume', id: 'make-data', args: { name: 'data' } },
        runOp('writer', write30('/data/big'), { args: { volumes: [{ name: 'data', dest: '/data' }] } }),
      ]),
      { containerLimits: market },
    );
    const began = Date.now();
    const summary = await t.waitEnded(job);
    expect(summary.state).toBe('failed');
    // The watcher may read while the writer is still writing: any reading over the limit, up to what was written.
    expect(overTheLimit(summary.reason, /^volume data used (\d+) MiB, over the market's limit of 10 MiB for a job's volumes$/)).toBe('over the limit');
    expect(Date.now() - began).toBeLessThan(20_000);
    expect(await leftovers(t.docker, node, job)).toEqual([]);
  });

  it("fails a job whose container's writable layer grows past the market's limit per container", async () => {
    const { job } = await t.submit(definition([runOp('writer', write30('/big'))]), { containerLimits: market });
    const summary = await t.waitEnded(job);
    expect(summary.state).toBe('failed');
    expect(overTheLimit(summary.reason, /^op writer wrote (\d+) MiB to its container's writable layer, over the market's limit of 10 MiB per container$/)).toBe('over the limit');
    expect(t.reporter.ended.find((s) => s.job === job)).toMatchObject({ state: 'failed' });
  });

  it('leaves a job within its limits running', async () => {
    const { job } = await t.submit(
      definition([
        { type: 'container/create-volume', id: 'make-data', args: { name: 'data' } },
        runOp('writer', 'dd if=/dev/zero of=/data/small bs=1048576 count=2 2>/dev/null; dd if=/dev/zero of=/small bs=1048576 count=2 2>/dev/null; echo written; sleep 60', {
          args: { volumes: [{ name: 'data', dest: '/data' }] },
        }),
      ]),
      { containerLimits: market },
    );
    await t.waitOp(job, 'writer', 'running');
    // Several ticks of the watcher (every 300 ms) after the writes.
    await new Promise((r) => setTimeout(r, 3000));
    expect(t.status(job)).toMatchObject({ state: 'running', reason: null });
    const summary = await t.agent.executor.stopAndWait(job, 'test over');
    expect(summary.state).toBe('stopped');
  });
});
