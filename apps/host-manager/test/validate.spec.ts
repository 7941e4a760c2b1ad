import type { BenchmarkTemplate } from '@ocg/contracts';
import { jsonLogicProblems } from '../src/templates/json-logic';
import { templateProblems } from '../src/templates/validate';

const M1 = 'market-one';
const op = { id: 'bench', type: 'container/run', args: { image: 'bench' } };
const template = (slug: string, extra: Partial<BenchmarkTemplate> = {}): BenchmarkTemplate => ({
  slug,
  operation: { name: slug, ops: [op], metrics: [{ key: 'tps' }] },
  requirements: [],
  supportedMarkets: [M1],
  ...extra,
});

describe('templateProblems', () => {
  it('accepts good templates', () => {
    expect(templateProblems([template('a'), template('b', { threshold: { metric: 'tps', jsonLogic: { '>': [{ var: 'tps' }, 1] } } })], new Set([M1]))).toEqual([]);
  });

  it('names every offending path across templates at once', () => {
    const bad = template('a', {
      operation: { name: 'a', ops: [{ id: 'x', type: 'container/run', args: {} }], metrics: [{ key: 'tps' }, { key: 'tps' }] },
      supportedMarkets: ['nowhere', M1, M1],
      threshold: { metric: 'latency', jsonLogic: { '>': 1, '<': 2 } },
    });
    const paths = templateProblems([template('ok'), bad, template('ok')], new Set([M1])).map((p) => p.path);
    expect(paths).toEqual([
      '/templates/1/operation/ops/0/args',
      '/templates/1/operation/metrics/1/key',
      '/templates/1/supportedMarkets/0',
      '/templates/1/supportedMarkets/2',
      '/templates/1/threshold/metric',
      '/templates/1/threshold/jsonLogic',
      '/templates/2/slug',
    ]);
  });

  it('says which metric keys a threshold may name', () => {
    const [problem] = templateProblems([template('a', { threshold: { metric: 'latency' } })], new Set([M1]));
    expect(problem).toEqual({ path: '/templates/0/threshold/metric', message: '"latency" is not a metric key of this template; use one of "tps"' });
  });

  it('refuses a threshold on a template without metrics', () => {
    const t = template('a', { operation: { name: 'a', ops: [op], metrics: [] }, threshold: {} });
    expect(templateProblems([t], new Set([M1])).map((p) => p.path)).toEqual(['/templates/0/threshold']);
  });
});

describe('jsonLogicProblems', () => {
  it.each([[{ '>=': [{ var: 'tokens_per_second' }, 20] }], [{ and: [{ '>': [{ var: 'a' }, 1] }, { '<': [{ var: 'b' }, 2] }] }], [{ var: 'a' }], [{ in: ['x', ['x', 'y']] }]])(
    'accepts %j',
    (rule) => {
      expect(jsonLogicProblems(rule, '/r')).toEqual([]);
    },
  );

  it.each([
    [[1, 2], '/r'],
    [{}, '/r'],
    [{ '>': 1, '<': 2 }, '/r'],
    [{ and: [{ '>': [1, 2] }, { a: 1, b: 2 }] }, '/r/and/1'],
    [{ ' ': [1] }, '/r'],
  ])('refuses %j at %s', (rule, path) => {
    expect(jsonLogicProblems(rule, '/r').map((p) => p.path)).toEqual([path]);
  });
});
