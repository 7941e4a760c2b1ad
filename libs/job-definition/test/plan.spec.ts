import { normalize, planStages, validate, type JobDefinition, type Op } from '../src';
import { job, loadExample, run, volume } from './helpers';

type Loose = Record<string, unknown>;

function planOf(definition: Loose) {
  expect(validate(definition).errors).toEqual([]);
  return planStages(normalize(definition as unknown as JobDefinition));
}

describe('planStages', () => {
  it('runs a service stage, then the stage that uses it', () => {
    const plan = planOf(loadExample('nosana-kit-docs__services.md__multi-stage-pipeline.json'));
    expect(plan.stages).toEqual([
      { index: 0, name: 'infrastructure', group: 'infrastructure', opIds: ['database', 'redis'], readyWhen: { healthy: ['database', 'redis'], ended: [] } },
      { index: 1, name: 'application', group: 'application', opIds: ['api-server', 'web-frontend'], readyWhen: { healthy: ['api-server', 'web-frontend'], ended: [] } },
    ]);
    expect(plan.ops[0]).toEqual({
      id: 'database',
      opIndex: 0,
      stage: 0,
      dependsOn: [],
      release: { kind: 'healthy', ports: [5432] },
      stopIfDependentStops: false,
      timeoutSeconds: null,
    });
  });

  it('starts a benchmark and the server it measures in one group, the server stopping when the benchmark ends', () => {
    const [template] = loadExample<Array<{ support_ops: Op[]; ops_overrides: { execution: Loose } }>>('pipeline-templates__Gemma4__benchmarks.json');
    const measured = loadExample<JobDefinition>('pipeline-templates__Gemma4__job-definition-26b.json');
    const server = { ...measured.ops[0], execution: template.ops_overrides.execution };
    const plan = planOf({ ...measured, ops: [server, ...template.support_ops] });
    expect(plan.stages).toEqual([{ index: 0, name: 'llm-pair', group: 'llm-pair', opIds: ['server', 'benchmark'], readyWhen: { healthy: ['server'], ended: ['benchmark'] } }]);
    expect(plan.ops.map(({ id, dependsOn, release, stopIfDependentStops }) => ({ id, dependsOn, release, stopIfDependentStops }))).toEqual([
      { id: 'server', dependsOn: ['benchmark'], release: { kind: 'healthy', ports: [11434] }, stopIfDependentStops: true },
      { id: 'benchmark', dependsOn: [], release: { kind: 'started' }, stopIfDependentStops: false },
    ]);
  });

  it('runs batch steps of separate groups one after another, in order of first appearance', () => {
    const plan = planOf(loadExample('nosana-cli__src__static__specs-and-network-job.json'));
    expect(plan.stages.map((s) => [s.name, s.opIds, s.readyWhen])).toEqual([
      ['spec', ['system-info', 'gpu-info'], { healthy: [], ended: ['system-info', 'gpu-info'] }],
      ['network', ['network-info'], { healthy: [], ended: ['network-info'] }],
    ]);
    expect(plan.ops.map((op) => [op.id, op.stage, op.release.kind])).toEqual([
      ['system-info', 0, 'started'],
      ['network-info', 1, 'started'],
      ['gpu-info', 0, 'started'],
    ]);
  });

  it('makes each op without a group a stage of its own, named so it cannot clash with a group', () => {
    const plan = planOf(job([run('a'), run('b', {}, { group: 'a' }), run('c', {}, { timeout: 60 })]));
    expect(plan.stages.map((s) => [s.name, s.group, s.opIds])).toEqual([
      ['a-2', null, ['a']],
      ['a', 'a', ['b']],
      ['c', null, ['c']],
    ]);
    expect(plan.ops[2].timeoutSeconds).toBe(60);
  });

  it('lists every port of an op, unresolved literals included', () => {
    const ops = [
      run('s', {}, { group: 'one' }, { results: { p: 'p', e: 'e' } }),
      run('a', { expose: [80, '%%ops.s.results.p%%', { __spread__: '%%ops.s.results.e%%' }] }, { group: 'two' }),
    ];
    expect(planOf(job(ops)).ops[1].release).toEqual({ kind: 'healthy', ports: [80, '%%ops.s.results.p%%', '%%ops.s.results.e%%'] });
  });

  it('plans nothing for a confidential job without ops', () => {
    expect(planOf(loadExample('nosana-cli__job-examples__confidential.json'))).toEqual({ stages: [], ops: [] });
  });
});

describe('planStages, names and releases', () => {
  it('names a stage after its op unless a group or an earlier stage took the name', () => {
    const plan = planOf(job([run('a'), run('b', {}, { group: 'a' }), run('a-2'), run('d', {}, { group: 'c-2' }), run('c')]));
    expect(plan.stages.map((s) => s.name)).toEqual(['a-2', 'a', 'a-2-2', 'c-2', 'c']);
    expect(planOf(job([run('a-2'), run('x', {}, { group: 'a' }), run('a')])).stages.map((s) => s.name)).toEqual(['a-2', 'a', 'a-3']);
  });

  it('releases a volume op, and a run op without ports, once started', () => {
    const plan = planOf(job([volume('v', 'data'), run('a', { expose: [] })]));
    expect(plan.ops.map((op) => op.release)).toEqual([{ kind: 'started' }, { kind: 'started' }]);
    expect(plan.stages.map((s) => s.readyWhen)).toEqual([
      { healthy: [], ended: ['v'] },
      { healthy: [], ended: ['a'] },
    ]);
  });
});
