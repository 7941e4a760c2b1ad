import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Copies of ../shared/examples/job-definitions, so the tests do not depend on the checkout layout. */
export const FIXTURES = join(__dirname, 'fixtures');
export const HEALTH_CHECK_EXAMPLE = 'nosana-kit-docs__health-checks.md__nginx.json';
export const RESULT_EXTRACTING_EXAMPLE = 'nosana-cli__job-examples__result-extracting.json';
export const BENCHMARK_EXAMPLE = 'pipeline-templates__Gemma4__benchmarks.json';

export function exampleNames(): string[] {
  return readdirSync(FIXTURES).filter((name) => name.endsWith('.json'));
}

export function loadExample<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as T;
}

/** Job definitions (not the benchmark template file), parsed. */
export function jobExamples(): Array<[string, Record<string, unknown>]> {
  return exampleNames()
    .filter((name) => name !== BENCHMARK_EXAMPLE)
    .map((name) => [name, loadExample(name)]);
}

type Loose = Record<string, unknown>;

export function job(ops: Loose[], extra: Loose = {}): Loose {
  return { version: '0.1', type: 'container', ops, ...extra };
}

export function run(id: string, args: Loose = {}, execution?: Loose, more: Loose = {}): Loose {
  return { type: 'container/run', id, args: { image: 'ubuntu', ...args }, ...(execution ? { execution } : {}), ...more };
}

export function volume(id: string, name: string, execution?: Loose): Loose {
  return { type: 'container/create-volume', id, args: { name }, ...(execution ? { execution } : {}) };
}

/**
 * fast-check options: `runs` property runs, scaled by PROPERTY_RUNS_SCALE (mutation
 * testing runs each covering test once per mutant, so it asks for fewer, and needs
 * only the verdict: no shrinking of a counterexample), with a fixed seed when
 * PROPERTY_SEED is set (so a mutant's verdict does not depend on luck).
 */
export function propertyRuns(runs: number): { numRuns: number; seed?: number; endOnFailure?: boolean } {
  const scaled = process.env.PROPERTY_RUNS_SCALE;
  const scale = Number(scaled ?? 1);
  const seed = process.env.PROPERTY_SEED;
  return {
    numRuns: Math.max(10, Math.round(runs * (scale > 0 ? scale : 1))),
    ...(seed ? { seed: Number(seed) } : {}),
    ...(scaled === undefined ? {} : { endOnFailure: true }),
  };
}
