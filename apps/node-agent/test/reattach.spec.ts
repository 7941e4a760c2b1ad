/** A killed agent loses nothing: the next one finds its jobs by label and carries on. */
import { LABEL } from '../src/docker/labels';
import { writeNote } from '../src/docker/objects';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, serve, signedHeader, startTestAgent, waitFor, type TestAgent } from './support/harness';
import { request, viaIngress } from './support/http';

const node = newNodeId('reattach');
const agents: TestAgent[] = [];

async function agent(): Promise<TestAgent> {
  const t = await startTestAgent(node);
  agents.push(t);
  return t;
}

beforeAll(prepareEngine);

afterAll(async () => {
  for (const t of agents) await t.close();
  const docker = agents[0].docker;
  const left = await leftovers(docker, node);
  await removeEverything(docker, node);
  expect(left).toEqual([]);
});

it('adopts a running job after an agent restart: states, logs, results, endpoints, stops and the poster', async () => {
  const first = await agent();
  const check = { type: 'http', path: '/', method: 'GET', expected_status: 200, continuous: true };
  const { job, wallet } = await first.submit(
    definition([
      runOp('web', serve(8080, 'still-here'), { args: { expose: [{ port: 8080, health_checks: [check] }] }, execution: { group: 'svc' } }),
      runOp('worker', 'echo "answer=42"; sleep 600', { execution: { group: 'svc' }, results: { answer: 'answer=(\\d+)' } }),
      runOp('side', 'sleep 600', { execution: { group: 'svc' } }),
    ]),
  );
  await first.waitOp(job, 'web', (o) => o.endpoints[0]?.status === 'ONLINE');
  await first.waitOp(job, 'worker', 'running');
  await first.agent.executor.stopOp(job, 'svc', 'side');
  await first.waitOp(job, 'side', 'stopped');
  await first.close(); // as if killed: nothing is stopped or removed

  const running = await first.docker.listContainers({ filters: { label: [`${LABEL.job}=${job}`] } });
  expect(running.map((c) => c.Labels[LABEL.op]).sort()).toEqual(['web', 'worker']);

  const second = await agent();
  expect(second.agent.adopted).toEqual([job]);
  expect(second.reporter.started).toEqual([{ job, adopted: true }]);
  await second.waitOp(job, 'web', (o) => o.endpoints[0]?.status === 'ONLINE');
  expect(second.op(job, 'worker').state).toBe('running');
  expect(second.op(job, 'side')).toMatchObject({ state: 'stopped', reason: 'stopped through the node API' });
  await waitFor(() => second.agent.executor.results(job).worker.answer.length > 0, 'results rebuilt from the logs');
  expect(second.agent.executor.results(job).worker.answer).toEqual(['42']);
  expect((await viaIngress(second.agent.ingress.url, job)).body).toBe('still-here\n');
  const ops = await request(`${second.agent.api.url}/job/${job}/ops`, { headers: { authorization: signedHeader(wallet, node, job) } });
  expect(ops.status).toBe(200);

  await second.agent.executor.stopAndWait(job, 'test done');
  expect(await leftovers(second.docker, node, job)).toEqual([]);
});

it("numbers an adopted op's log lines as its agent did, after the node's own lines and an earlier container's", async () => {
  const first = await agent();
  const { job } = await first.submit(definition([runOp('talk', 'echo "run at $(date +%s%N)"; echo second line; sleep 600', { execution: { group: 'svc' } })]));
  const logs = (t: TestAgent) => t.agent.executor.logs(job, 'talk');
  const stdout = (t: TestAgent) => logs(t).lines({ streams: new Set(['stdout']) });
  await waitFor(() => stdout(first).length === 2, "the first container's lines");
  // A restart through the node API: the node's own line, then a new container whose lines follow it.
  await first.agent.executor.restartOp(job, 'svc', 'talk');
  await waitFor(() => stdout(first).length === 4, "the second container's lines");
  const before = logs(first).lines();
  expect(before.map((l) => [l.seq, l.stream])).toEqual([
    [1, 'stdout'],
    [2, 'stdout'],
    [3, 'nodeerr'],
    [4, 'stdout'],
    [5, 'stdout'],
  ]);
  await first.close(); // as if killed

  const second = await agent();
  expect(second.agent.adopted).toEqual([job]);
  await waitFor(() => stdout(second).length === 2, "the adopted container's lines, read again from the engine");
  // The engine has only the running container's lines: they keep their numbers, so a follower resuming after 4 reads 5.
  expect(logs(second).lines()).toEqual(before.slice(3));
  expect(
    logs(second)
      .after(4, 10)
      .map((l) => l.seq),
  ).toEqual([5]);
  await second.agent.executor.stopAndWait(job, 'test done');
});

it('ends and cleans up a job whose duration ran out while no agent was running', async () => {
  const first = await agent();
  const { job } = await first.submit(definition([runOp('svc', 'sleep 600')]));
  await first.waitOp(job, 'svc', 'running');
  await first.close();
  // The deadline passes while no agent runs: written as the last deadline note (what an extension writes, and what a
  // restarted agent believes over the network's label), so a slow start cannot end the job before the agent closes.
  await writeNote(first.docker, node, job, { kind: 'deadline', deadline: Date.now() - 1000, at: Date.now() });

  const second = await agent();
  const summary = await second.waitEnded(job);
  expect(summary).toMatchObject({ state: 'completed', reason: "the job's duration is over" });
  expect(await leftovers(second.docker, node, job)).toEqual([]);
});

it('finishes the cleanup of a job that had ended when its agent died', async () => {
  const first = await agent();
  const { job } = await first.submit(definition([runOp('svc', 'sleep 600')]));
  await first.waitOp(job, 'svc', 'running');
  await first.close();
  // The first step of ending a job: the decision is written before anything is stopped.
  await writeNote(first.docker, node, job, { kind: 'job-ended', state: 'stopped', reason: 'stopped by the control plane', at: Date.now() });

  const second = await agent();
  const summary = await second.waitEnded(job);
  expect(summary).toMatchObject({ state: 'stopped', reason: 'stopped by the control plane' });
  expect(summary.ops[0]).toMatchObject({ state: 'stopped' });
  expect(await leftovers(second.docker, node, job)).toEqual([]);
});

it('ends a job whose end was under way when its agent closed, instead of leaving its stops to race the next agent', async () => {
  const first = await agent();
  // Ends on SIGTERM at once (a shell as PID 1 ignores it otherwise, and the stop would wait out its grace).
  const { job } = await first.submit(definition([runOp('svc', "trap 'exit 0' TERM; sleep 600 & wait")]));
  await first.waitOp(job, 'svc', 'running');
  const ended = first.agent.executor.stopAndWait(job, 'stopped by the control plane');
  await first.close();
  expect(await leftovers(first.docker, node, job)).toEqual([]);
  expect(await ended).toMatchObject({ state: 'stopped', reason: 'stopped by the control plane' });

  const second = await agent();
  expect(second.agent.adopted).toEqual([]);
});
