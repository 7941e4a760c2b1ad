import { normalize, planStages, validate, validateOps } from '../src';
import type { JobDefinition, NormalizedRunOp, Op } from '../src';
import { BENCHMARK_EXAMPLE, HEALTH_CHECK_EXAMPLE, RESULT_EXTRACTING_EXAMPLE, exampleNames, jobExamples, loadExample } from './helpers';

interface BenchmarkTemplate {
  support_ops: unknown[];
  ops_overrides: { execution: Record<string, unknown> };
}

describe('real examples', () => {
  it('holds every shared example', () => {
    expect(exampleNames()).toHaveLength(20);
  });

  // The result-extracting example carries the regex `\\` on purpose, to exercise a result
  // that never captures. Such a regex is now an error at validation (ADR 0025): the
  // poster hears about it before paying, so that example is refused.
  const valid = jobExamples().filter(([name]) => name !== HEALTH_CHECK_EXAMPLE && name !== RESULT_EXTRACTING_EXAMPLE);
  it.each(valid)('accepts %s', (_name, definition) => {
    const result = validate(definition);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('rejects the health check without continuous with exactly one error at that health check', () => {
    const result = validate(loadExample(HEALTH_CHECK_EXAMPLE));
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([{ path: '/ops/0/args/expose/0/health_checks/0', message: 'missing required member "continuous"' }]);
  });

  it('accepts the benchmark template ops, leaving the server they measure to the joined job', () => {
    const [template] = loadExample<BenchmarkTemplate[]>(BENCHMARK_EXAMPLE);
    const result = validateOps(template.support_ops);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([{ path: '/0/args/env/BASE_URL', message: 'op "server" is not in this list; the job these ops join must provide it' }]);
    expect(validateOps(template.support_ops, { externalOpIds: ['server'] })).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('accepts the benchmark ops joined with the job they measure', () => {
    const [template] = loadExample<BenchmarkTemplate[]>(BENCHMARK_EXAMPLE);
    const measured = loadExample<JobDefinition>('pipeline-templates__Gemma4__job-definition-26b.json');
    const server = { ...measured.ops[0], execution: template.ops_overrides.execution } as Op;
    const joined = { ...measured, ops: [server, ...(template.support_ops as Op[])] };
    expect(validate(joined)).toEqual({ valid: true, errors: [], warnings: [] });
    const benchmark = normalize(joined).ops[1] as NormalizedRunOp;
    expect(benchmark.args.env).toMatchObject({ BASE_URL: 'http://server:11434' });
  });

  it('refuses the example regex that cannot compile, with exactly one error at that regex', () => {
    const result = validate(loadExample(RESULT_EXTRACTING_EXAMPLE));
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([{ path: '/ops/0/results/throw-error/regex', message: expect.stringContaining('does not compile') }]);
  });

  it('accepts the result-extracting example once its broken regex is taken out', () => {
    const definition = loadExample<{ ops: Array<{ results: Record<string, unknown> }> }>(RESULT_EXTRACTING_EXAMPLE);
    delete definition.ops[0].results['throw-error'];
    expect(validate(definition)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it.each(valid)('normalizes and plans %s', (_name, definition) => {
    const normalized = normalize(definition as unknown as JobDefinition);
    expect(normalize(normalized)).toEqual(normalized);
    const plan = planStages(normalized);
    expect(plan.ops.map((op) => op.id)).toEqual(normalized.ops.map((op) => op.id));
  });
});
