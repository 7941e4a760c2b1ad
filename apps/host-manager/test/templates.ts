import type { BenchmarkTemplate } from '@ocg/contracts';

export const tps = { key: 'tokens_per_second', type: 'float', expiry: '5d', processor: 'results_selector', defaultValue: null, input: 'tokens_per_second' };
export const watts = { key: 'gpu_wattage_avg', type: 'float', expiry: '5d', processor: 'results_selector', defaultValue: null, input: 'gpu_wattage_avg' };
export const rule = { '>=': [{ var: 'tokens_per_second' }, 20] };

export const benchOp = {
  id: 'benchmark',
  type: 'container/run',
  args: { image: 'nosana/llm-benchmark:0.0.3', gpu: true, env: { BASE_URL: 'http://%%ops.server.host%%:11434' } },
  execution: { group: 'llm-pair' },
  results: { tokens_per_second: '"users_1_tokens_per_second_mean":(-?[\\d.]+)' },
};

/** A template gating its markets on tokens_per_second >= 20 unless told otherwise. */
export function template(slug: string, supportedMarkets: string[], extra: Partial<BenchmarkTemplate> = {}): BenchmarkTemplate {
  return {
    slug,
    operation: { name: `${slug} benchmark`, description: 'LLM throughput', source: 'test', ops: [benchOp], metrics: [tps, watts] },
    requirements: [{ vramGb: 24 }],
    supportedMarkets,
    threshold: { metric: 'tokens_per_second', jsonLogic: rule },
    ...extra,
  };
}
