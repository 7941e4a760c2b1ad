import { randomBytes } from 'node:crypto';
import { createSigner } from '@ocg/auth';
import type { FinishJobRequest, ReportJobRequest } from '@ocg/contracts';
import { createLogger, listen, type RunningServer } from '@ocg/http';
import { waitFor } from '@ocg/testing';
import { ControlPlaneClient } from '../src/control-plane/client';
import { ControlPlaneReporter } from '../src/control-plane/reporter';
import { LogBuffer } from '../src/executor/log-buffer';
import type { OpStatus } from '../src/executor/types';

const JOB = 'JobAddr1';

const op = (state: OpStatus['state'] = 'running'): OpStatus => ({
  id: 'web',
  group: 'web',
  stage: 0,
  opIndex: 0,
  type: 'container/run',
  state,
  exitCode: null,
  reason: null,
  restarts: 0,
  startedAt: new Date().toISOString(),
  endedAt: null,
  endpoints: [],
});

/** The control plane as a real HTTP server that keeps every body it was sent. */
async function controlPlane(): Promise<{ server: RunningServer; calls: { path: string; body: any }[] }> {
  const calls: { path: string; body: any }[] = [];
  const server = await listen(
    (req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString()));
      req.on('end', () => {
        calls.push({ path: req.url ?? '', body: JSON.parse(text) });
        res.writeHead(200, { 'content-type': 'application/json' }).end(req.url?.endsWith('/finish') ? '{"status":"COMPLETED","resultCid":"x"}' : '{"stop":false}');
      });
    },
    { host: '127.0.0.1', port: 0 },
  );
  return { server, calls };
}

describe('log tails in control-plane reports', () => {
  let cp: Awaited<ReturnType<typeof controlPlane>>;
  let reporter: ControlPlaneReporter;
  let logs: LogBuffer;

  beforeEach(async () => {
    cp = await controlPlane();
    const client = new ControlPlaneClient(cp.server.url, createSigner(randomBytes(32)), 5000);
    reporter = new ControlPlaneReporter(client, { batchMs: 10, finishWaitMs: 5000, logTailMs: 100 }, createLogger({ service: 'node-agent', level: 'silent' }));
    logs = new LogBuffer(1000, 1 << 20);
    reporter.readLogs((job, id) => (job === JOB && id === 'web' ? logs : undefined));
  });

  afterEach(async () => {
    reporter.close();
    await cp.server.close();
  });

  const reports = () => cp.calls.filter((c) => c.path.endsWith('/report')).map((c) => c.body as ReportJobRequest);
  const tails = () => reports().flatMap((r) => (r.ops ?? []).filter((o) => o.logTail).map((o) => o.logTail!));

  it('sends the last 20 lines of a grown log, each cut at 500 characters, with the op state', async () => {
    reporter.opChanged(JOB, op());
    for (let i = 1; i <= 30; i++) logs.push(i % 2 ? 'stdout' : 'stderr', `line ${i}`);
    logs.push('stdout', 'x'.repeat(2000));
    await waitFor(() => tails().length > 0, { timeoutMs: 3000, what: 'a report with a log tail' });
    const [tail] = tails();
    expect(tail).toHaveLength(20);
    expect(tail[0]).toEqual({ stream: 'stderr', text: 'line 12' });
    expect(tail[19]).toEqual({ stream: 'stdout', text: 'x'.repeat(500) });
    expect(reports().find((r) => r.ops?.some((o) => o.logTail))?.ops?.[0]).toMatchObject({ id: 'web', status: 'running', opIndex: 0 });
  });

  it('sends nothing more while the log does not grow, and the new tail once it does', async () => {
    reporter.opChanged(JOB, op());
    logs.push('stdout', 'first');
    await waitFor(() => tails().length === 1, { timeoutMs: 3000, what: 'the first tail' });
    await new Promise((r) => setTimeout(r, 400));
    expect(tails()).toHaveLength(1);
    logs.push('stderr', 'second');
    await waitFor(() => tails().length === 2, { timeoutMs: 3000, what: 'the second tail' });
    expect(tails()[1]).toEqual([
      { stream: 'stdout', text: 'first' },
      { stream: 'stderr', text: 'second' },
    ]);
  });

  it('puts the final lines into the finish of the job', async () => {
    reporter.opChanged(JOB, op());
    logs.push('stdout', 'done');
    await reporter.jobEnded({ job: JOB, state: 'completed', reason: null, startedAt: '', deadline: '', endedAt: null, currentStage: null, ops: [op('completed')], results: {} });
    const finish = cp.calls.find((c) => c.path.endsWith('/finish'))?.body as FinishJobRequest;
    expect(finish.ops[0]).toMatchObject({ id: 'web', status: 'completed', logTail: [{ stream: 'stdout', text: 'done' }] });
  });

  it('puts into the finish the final lines a report had taken but not yet sent when the job ended', async () => {
    reporter.close();
    const client = new ControlPlaneClient(cp.server.url, createSigner(randomBytes(32)), 5000);
    // Reports wait 10 s, tails are taken every 50 ms: the tail is taken into a report the job's end overtakes.
    reporter = new ControlPlaneReporter(client, { batchMs: 10_000, finishWaitMs: 5000, logTailMs: 50 }, createLogger({ service: 'node-agent', level: 'silent' }));
    reporter.readLogs((job, id) => (job === JOB && id === 'web' ? logs : undefined));
    reporter.opChanged(JOB, op());
    logs.push('stdout', 'answer=42');
    await new Promise((r) => setTimeout(r, 300));
    await reporter.jobEnded({ job: JOB, state: 'completed', reason: null, startedAt: '', deadline: '', endedAt: null, currentStage: null, ops: [op('completed')], results: {} });
    expect(reports()).toHaveLength(0);
    const finish = cp.calls.find((c) => c.path.endsWith('/finish'))?.body as FinishJobRequest;
    expect(finish.ops[0]).toMatchObject({ id: 'web', status: 'completed', logTail: [{ stream: 'stdout', text: 'answer=42' }] });
  });
});
