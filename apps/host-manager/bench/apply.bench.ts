/**
 * A dry-run apply of 1,000 templates against 1,000 stored benchmarks (5
 * metrics, 10 supported markets, one gating threshold and 10 market links
 * each), against the baseline of reading the same rows without diffing.
 *
 *   nx run host-manager:bench   (tsx tools/testenv/run.ts --no-docker -- tsx apps/host-manager/bench/apply.bench.ts)
 */
import 'reflect-metadata';
import type { BenchmarkTemplate } from '@ocg/contracts';
import { createDataSource } from '@ocg/db';
import { testDatabase, runBench } from '@ocg/testing';
import { entities, MarketEntity } from '../src/entities';
import { migrations } from '../src/migrations';
import { BenchmarkRepository } from '../src/benchmarks/benchmark.repository';
import { generateAddress, generateJoinToken } from '../src/markets/join-token';
import { MarketRepository } from '../src/markets/market.repository';
import { MarketService } from '../src/markets/market.service';
import { TemplateApplyService } from '../src/templates/template-apply.service';
import { reconcile } from '../src/templates/reconcile';

const TEMPLATES = 1000;
const METRICS = 5;
const MARKETS = 10;
const RUNS = 15;

type KeyOf = (benchmark: number, metric: number) => string;

function template(i: number, markets: string[], keyOf: KeyOf): BenchmarkTemplate {
  const metrics = Array.from({ length: METRICS }, (_, m) => ({ key: keyOf(i, m), type: 'float', expiry: '5d', processor: 'results_selector', input: keyOf(i, m) }));
  return {
    slug: `bench-${String(i).padStart(4, '0')}`,
    operation: {
      name: `benchmark ${i}`,
      description: 'synthetic',
      source: 'bench',
      ops: [{ id: 'benchmark', type: 'container/run', args: { image: 'bench:1', gpu: true, env: { BASE_URL: 'http://%%ops.server.host%%:11434' } }, results: { v: 'v=(\\d+)' } }],
      metrics,
    },
    requirements: [{ vramGb: 24 }],
    supportedMarkets: markets,
    threshold: { metric: keyOf(i, 0), jsonLogic: { '>=': [{ var: keyOf(i, 0) }, 20] } },
  };
}

async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

/** Seeds a store by applying the templates, then times a dry run against reading the rows. */
async function scenario(label: string, keyOf: KeyOf): Promise<void> {
  const database = await testDatabase();
  const db = await createDataSource({ url: database.url, schema: 'host_manager', entities, migrations });
  try {
    const markets = Array.from({ length: MARKETS }, (_, i) => ({
      address: generateAddress(),
      name: `Bench ${i}`,
      pricePerSecond: 1,
      gpuRequired: true,
      defaultDurationSeconds: 7200,
      maxDurationSeconds: 86400,
      joinTokenHash: generateJoinToken().hash,
    }));
    await db.getRepository(MarketEntity).insert(markets);
    const templates = Array.from({ length: TEMPLATES }, (_, i) =>
      template(
        i,
        markets.map((m) => m.address),
        keyOf,
      ),
    );
    const store = new BenchmarkRepository(db);
    const service = new TemplateApplyService(store, new MarketService(new MarketRepository(db)), 30_000);
    const seeded = Date.now();
    await service.apply({ templates, dryRun: false });
    const seedMs = Date.now() - seeded;
    const state = await store.readState();
    const check = await service.apply({ templates });
    if (!check.changes.every((c) => c.status === 'unchanged' && c.reconciliation.inSync)) throw new Error('seeded state is not in sync');
    for (let i = 0; i < 3; i++) await service.apply({ templates }); // warm-up
    const read = await median(RUNS, () => store.readState());
    const apply = await median(RUNS, () => service.apply({ templates }));
    const diff = await median(RUNS, async () => reconcile(templates, state, { prune: false }));
    console.log(
      `${label}: ${TEMPLATES} templates vs ${state.benchmarks.length} stored (${METRICS} metrics, ${MARKETS} markets each; ${state.thresholds.length} thresholds, ${state.links.length} links)`,
    );
    console.log(`  first apply, writing everything:     ${seedMs} ms`);
    console.log(`  baseline, reading the same rows:     ${read.toFixed(1)} ms (median of ${RUNS})`);
    console.log(`  dry-run apply (validate, read, diff): ${apply.toFixed(1)} ms (median of ${RUNS}), of which the pure diff ${diff.toFixed(1)} ms`);
    console.log(`  ratio dry-run apply / read: ${(apply / read).toFixed(2)}x`);
  } finally {
    await db.destroy();
    await database.drop();
  }
}

async function main(): Promise<void> {
  await scenario('metric keys of their own', (b, m) => `bench_${b}_metric_${m}`);
  // Every LLM benchmark measures tokens_per_second: then each change record lists every threshold on it.
  await scenario('metric keys shared by all benchmarks', (_b, m) => `metric_${m}`);
}

runBench(main);
