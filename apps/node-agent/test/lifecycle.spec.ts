/** Stages, dependencies, results, restarts, timeouts and hardening against the real engine. */
import { KEPT_CAPABILITIES } from '../src/docker/container-spec';
import { LABEL } from '../src/docker/labels';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, serve, startTestAgent, type TestAgent } from './support/harness';

const node = newNodeId('lifecycle');
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

it('extracts results by regex from the named log streams, one value per match, and completes the job', async () => {
  const script = "echo 'Device 0: RTX 3070' >&2; echo 'Device 1: RTX 3080'; echo 'speed=41 speed=42'";
  const results = {
    stderrOnly: { regex: 'Device [0-9].*', logType: ['stderr'] },
    both: 'Device [0-9].*',
    speed: 'speed=(\\d+)',
    missing: 'Missing',
  };
  const { job } = await t.submit(definition([runOp('probe', script, { results })]));
  const summary = await t.waitEnded(job);

  expect(summary).toMatchObject({ state: 'completed', reason: 'every op ended' });
  expect(summary.results.probe).toEqual({
    stderrOnly: ['Device 0: RTX 3070'],
    both: expect.arrayContaining(['Device 0: RTX 3070', 'Device 1: RTX 3080']),
    speed: ['41', '42'],
    missing: [],
  });
  expect(t.reporter.ended.find((s) => s.job === job)?.results.probe.speed).toEqual(['41', '42']);
  expect(await leftovers(t.docker, node, job)).toEqual([]);
});

it('restarts a failing op up to restart_tries, then fails it and the job, and later stages never start', async () => {
  const { job } = await t.submit(
    definition([
      runOp('flaky', 'echo attempt; exit 3', { args: { restart_policy: { policy: 'on-failure', restart_tries: 2 } }, execution: { group: 'first' } }),
      runOp('later', 'echo never', { execution: { group: 'second' } }),
    ]),
  );
  const summary = await t.waitEnded(job);
  const flaky = summary.ops.find((o) => o.id === 'flaky')!;
  expect(flaky).toMatchObject({ state: 'failed', exitCode: 3, restarts: 2 });
  expect(flaky.reason).toContain('exited with code 3 after 2 restarts');
  expect(t.reporter.ended.find((s) => s.job === job)).toBeDefined();
  expect(summary).toMatchObject({ state: 'failed', reason: expect.stringContaining('op flaky failed') });
  expect(summary.ops.find((o) => o.id === 'later')).toMatchObject({ state: 'stopped', startedAt: null });
  expect(await leftovers(t.docker, node, job)).toEqual([]);
});

it('keeps every attempt of a restarted op in its logs', async () => {
  const { job } = await t.submit(definition([runOp('flaky', 'echo attempt; exit 1', { args: { restart_policy: { policy: 'on-failure', restart_tries: 1 } } })]));
  await t.waitOp(job, 'flaky', 'failed');
  const lines = t.agent.executor.logs(job, 'flaky').lines({ streams: new Set(['stdout']) });
  expect(lines.map((l) => l.text)).toEqual(['attempt', 'attempt']);
  await t.waitEnded(job);
});

it('stops the server a benchmark measures when the benchmark ends (stop_if_dependent_stops)', async () => {
  const bench = 'until wget -qO- http://server:8080/ >/dev/null 2>&1; do sleep 0.1; done; echo \'"tokens_per_second":42.5\'';
  const { job } = await t.submit(
    definition([
      runOp('benchmark', bench, { execution: { group: 'llm-pair' }, results: { tps: '"tokens_per_second":(-?[\\d.]+)' } }),
      runOp('server', serve(8080), { args: { expose: 8080 }, execution: { group: 'llm-pair', depends_on: ['benchmark'], stop_if_dependent_stops: true } }),
    ]),
  );
  const summary = await t.waitEnded(job);
  expect(summary.state).toBe('completed');
  expect(summary.ops.find((o) => o.id === 'benchmark')).toMatchObject({ state: 'completed', exitCode: 0 });
  const server = summary.ops.find((o) => o.id === 'server')!;
  expect(server.state).toBe('stopped');
  expect(server.reason).toContain('benchmark');
  expect(summary.results.benchmark.tps).toEqual(['42.5']);
});

it('fails the dependents of a dependency that fails before it is released, with the reason', async () => {
  const { job } = await t.submit(
    definition([
      runOp('dep', 'echo boom >&2; exit 1', { args: { expose: 8080 }, execution: { group: 'a' } }),
      runOp('dependent', 'echo hi', { execution: { group: 'a', depends_on: ['dep'] } }),
    ]),
  );
  const summary = await t.waitEnded(job);
  const dep = summary.ops.find((o) => o.id === 'dep')!;
  expect(dep.state).toBe('failed');
  expect(dep.reason).toMatch(/exited with code 1 before its exposed ports were ready.*boom/);
  const dependent = summary.ops.find((o) => o.id === 'dependent')!;
  expect(dependent).toMatchObject({ state: 'failed', startedAt: null });
  expect(dependent.reason).toContain('dependency dep failed before it was released');
  expect(summary.state).toBe('failed');
});

it('stops a service at its execution.timeout and fails a task that overruns it', async () => {
  const { job } = await t.submit(
    definition([
      runOp('svc', serve(8080), { args: { expose: 8080 }, execution: { group: 'g', timeout: 1 } }),
      runOp('task', 'sleep 30', { execution: { group: 'g', timeout: 2 } }),
    ]),
  );
  const svc = await t.waitOp(job, 'svc', 'stopped');
  expect(svc.reason).toBe('execution.timeout of 1 s reached');
  const summary = await t.waitEnded(job);
  expect(summary.ops.find((o) => o.id === 'task')).toMatchObject({ state: 'failed', reason: 'execution.timeout of 2 s reached' });
});

it('shares a created volume between ops of later stages', async () => {
  const { job } = await t.submit(
    definition([
      { type: 'container/create-volume', id: 'make-data', args: { name: 'data' } },
      runOp('writer', 'echo stored > /data/x', { args: { volumes: [{ name: 'data', dest: '/data' }] }, execution: { group: 'write' } }),
      runOp('reader', 'cat /data/x', { args: { volumes: [{ name: 'data', dest: '/data' }] }, execution: { group: 'read' }, results: { got: '^stored$' } }),
    ]),
  );
  const summary = await t.waitEnded(job);
  expect(summary.state).toBe('completed');
  expect(summary.ops.map((o) => o.state)).toEqual(['completed', 'completed', 'completed']);
  expect(summary.results.reader.got).toEqual(['stored']);
  expect(await leftovers(t.docker, node, job)).toEqual([]);
});

it('resolves a result of an earlier stage into a later op', async () => {
  const { job } = await t.submit(
    definition([
      runOp('setter', "echo 'port: 9000'", { execution: { group: 'pre' }, results: { port: '(?<=port: ).*' } }),
      runOp('user', 'echo "using $PORT and %%global.job%%"', {
        args: { env: { PORT: '%%ops.setter.results.port%%' } },
        execution: { group: 'main' },
        results: { line: 'using (.*)' },
      }),
    ]),
  );
  const summary = await t.waitEnded(job);
  expect(summary.results.user.line).toEqual([`9000 and ${job}`]);
});

it('hardens every container and labels every container, network and volume it makes', async () => {
  const { job } = await t.submit(
    definition([
      { type: 'container/create-volume', id: 'vol', args: { name: 'cache' } },
      runOp('svc', serve(8080), { args: { expose: 8080, volumes: [{ name: 'cache', dest: '/cache' }], restart_policy: 'always' }, execution: { group: 'web' } }),
    ]),
  );
  await t.waitOp(job, 'svc', (o) => o.endpoints[0]?.status === 'ONLINE');
  const [summary] = await t.docker.listContainers({ filters: { label: [`${LABEL.job}=${job}`] } });
  const info = await t.docker.getContainer(summary.Id).inspect();
  const host = info.HostConfig;
  expect(host).toMatchObject({ Privileged: false, Init: true, CapDrop: ['ALL'], PidsLimit: 4096, Memory: 128 * 1024 * 1024, NetworkMode: `ocg-${job}` });
  expect(host.SecurityOpt).toContain('no-new-privileges');
  expect(host.CapAdd).toEqual(KEPT_CAPABILITIES);
  expect(host.RestartPolicy).toMatchObject({ Name: 'always' });
  expect(JSON.stringify(info.Mounts)).not.toContain('docker.sock');
  expect(info.Config.Labels).toMatchObject({ [LABEL.managed]: 'true', [LABEL.job]: job, [LABEL.op]: 'svc', [LABEL.group]: 'web', [LABEL.node]: node });

  const [network] = await t.docker.listNetworks({ filters: { label: [`${LABEL.job}=${job}`] } });
  expect(network.Labels).toMatchObject({ [LABEL.managed]: 'true', [LABEL.job]: job, [LABEL.node]: node });
  const { Volumes } = await t.docker.listVolumes({ filters: { label: [`${LABEL.job}=${job}`] } });
  expect(Volumes.map((v) => v.Name)).toContain(`ocg-${job}-v-cache`);
  for (const v of Volumes) expect(v.Labels).toMatchObject({ [LABEL.managed]: 'true', [LABEL.job]: job });
  await t.agent.executor.stopAndWait(job, 'test done');
  expect(await leftovers(t.docker, node, job)).toEqual([]);
});
