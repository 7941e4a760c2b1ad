import type { GetBenchmarkResponse, ListBenchmarksResponse, ListThresholdsResponse } from '@ocg/contracts';
import { NotFoundError } from '@ocg/http';
import { toBenchmarkRecord, toLinkRecord, toThresholdRecord } from './benchmark.records';
import type { BenchmarkRepository } from './benchmark.repository';

/** Reading benchmarks and thresholds; writing is apply's job. */
export class BenchmarkService {
  constructor(private readonly benchmarks: BenchmarkRepository) {}

  async list(): Promise<ListBenchmarksResponse> {
    const rows = await this.benchmarks.list();
    return { benchmarks: rows.map(toBenchmarkRecord), total: rows.length };
  }

  async get(slug: string): Promise<GetBenchmarkResponse> {
    const row = await this.benchmarks.get(slug);
    if (!row) throw new NotFoundError(`No benchmark "${slug}"`);
    return { ...toBenchmarkRecord(row), ...(await this.thresholds(slug)) };
  }

  /** Every threshold and link, or those of one group (a benchmark slug). */
  async thresholds(group?: string): Promise<ListThresholdsResponse> {
    const { thresholds, links } = await this.benchmarks.thresholds(group);
    return { thresholds: thresholds.map(toThresholdRecord), marketThresholds: links.map(toLinkRecord) };
  }
}
