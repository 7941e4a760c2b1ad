/** Remote resources' fetch progress as the CLI shows it: bars on a terminal, numbers otherwise. */
import type { JobOpEvent, JobRecord, NodeResourceProgress } from '@ocg/contracts';
import { JobProgress } from '../src/job-events';
import { describeJob } from '../src/job-view';
import { amount, bar, fetchLine, resourcesTable, size } from '../src/resource-progress';

const MiB = 2 ** 20;
const resource = (over: Partial<NodeResourceProgress> = {}): NodeResourceProgress => ({
  resource: 's3 models.example/llm',
  target: '/models',
  state: 'fetching',
  cached: false,
  bytesDone: 12 * MiB,
  bytesTotal: 30 * MiB,
  filesDone: 3,
  filesTotal: 10,
  ...over,
});

describe('resource progress', () => {
  it('says sizes in binary units and draws the share done', () => {
    expect(size(512)).toBe('512 B');
    expect(size(12 * MiB)).toBe('12.0 MiB');
    expect(size(3 * 1024 * MiB)).toBe('3.0 GiB');
    expect(bar(12, 30)).toBe(`[${'#'.repeat(8)}${'-'.repeat(12)}]`);
    expect(bar(30, 30)).toBe(`[${'#'.repeat(20)}]`);
    expect(bar(5, null)).toBe('');
  });

  it('shows bytes, percent and files, with the bar only when asked', () => {
    expect(amount(resource(), false)).toBe('12.0 MiB of 30.0 MiB (40%), 3/10 files');
    expect(amount(resource(), true)).toBe('[########------------] 12.0 MiB of 30.0 MiB (40%), 3/10 files');
    expect(amount(resource({ bytesTotal: null, filesTotal: null }), true)).toBe('12.0 MiB');
  });

  it("sums an op's resources into one line while any is being fetched, and says nothing once all are in place", () => {
    const two = [resource(), resource({ resource: 'hf org/model', target: '/hf', bytesDone: 18 * MiB, bytesTotal: 20 * MiB, filesDone: 1, filesTotal: 2 })];
    expect(fetchLine(two, false)).toBe('fetching resources 30.0 MiB of 50.0 MiB (60%), 4/12 files');
    expect(fetchLine([resource({ state: 'resolving', bytesDone: 0, bytesTotal: null, filesDone: 0, filesTotal: null })], true)).toBe('fetching resources (listing it) 0 B');
    expect(fetchLine([resource({ state: 'ready', bytesDone: 30 * MiB })], true)).toBeUndefined();
    expect(fetchLine(undefined, true)).toBeUndefined();
  });

  it('puts the progress of a fetching op on the waiting line of post --wait and get --watch', () => {
    const progress = new JobProgress(true);
    const op = { id: 'llm', status: 'pending', activity: 'fetching resources', resources: [resource()] } as unknown as JobOpEvent;
    progress.apply({ id: '1-0', type: 'job', data: { status: 'RUNNING', reason: null } } as never);
    progress.apply({ id: '1-1', type: 'op', data: op } as never);
    expect(progress.text()).toBe('RUNNING; llm: fetching resources [########------------] 12.0 MiB of 30.0 MiB (40%), 3/10 files');
    expect(new JobProgress(false).text()).toBe('connecting');
  });

  it('lists each resource of each op in ocg job get, the op marked as fetching', () => {
    const job = {
      ops: [
        {
          id: 'llm',
          group: null,
          status: 'pending',
          activity: 'fetching resources',
          exitCode: null,
          restarts: 0,
          startedAt: null,
          endedAt: null,
          reason: null,
          resources: [resource(), resource({ resource: 'ollama gemma:2b', target: '/root/.ollama/models', state: 'ready', cached: true })],
        },
      ],
      endpoints: [],
      links: {},
    } as unknown as JobRecord;
    const table = resourcesTable(job, false)!;
    expect(table).toMatch(/OP\s+RESOURCE\s+TARGET\s+STATE\s+PROGRESS/);
    expect(table).toMatch(/llm\s+s3 models\.example\/llm\s+\/models\s+fetching\s+12\.0 MiB of 30\.0 MiB \(40%\), 3\/10 files/);
    expect(table).toMatch(/ollama gemma:2b\s+\/root\/\.ollama\/models\s+ready \(cached\)\s+-/);
    expect(describeJob(job, null, true)).toContain('[########------------]');
    expect(describeJob(job, null, true)).toContain('pending (fetching resources)');
    expect(resourcesTable({ ...job, ops: [{ ...job.ops[0], resources: undefined }] } as JobRecord, true)).toBeUndefined();
  });
});
