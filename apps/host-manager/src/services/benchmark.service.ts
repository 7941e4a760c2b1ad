import { In, type DataSource } from 'typeorm';
import type { GetBenchmarkResponse, ListBenchmarksResponse, ListThresholdsResponse } from '@ocg/contracts';
import { NotFoundError } from '@ocg/http';
import { BenchmarkEntity, MarketThresholdEntity, ThresholdEntity } from '../entities';
import { toBenchmarkRecord, toLinkRecord, toThresholdRecord } from './records';

/** Reading benchmarks and thresholds; writing is apply's job. */
export class BenchmarkService {
  constructor(private readonly db: DataSource) {}

  async list(): Promise<ListBenchmarksResponse> {
    const rows = await this.db.getRepository(BenchmarkEntity).find({ order: { slug: 'ASC' } });
    return { benchmarks: rows.map(toBenchmarkRecord), total: rows.length };
  }

  async get(slug: string): Promise<GetBenchmarkResponse> {
    const row = await this.db.getRepository(BenchmarkEntity).findOneBy({ slug });
    if (!row) throw new NotFoundError(`No benchmark "${slug}"`);
    return { ...toBenchmarkRecord(row), ...(await this.thresholds(slug)) };
  }

  /** Every threshold and link, or those of one group (a benchmark slug). */
  async thresholds(group?: string): Promise<ListThresholdsResponse> {
    const thresholds = await this.db.getRepository(ThresholdEntity).find({ where: group === undefined ? {} : { group }, order: { id: 'ASC' } });
    const ids = thresholds.map((t) => t.id);
    const links =
      ids.length === 0
        ? []
        : await this.db.getRepository(MarketThresholdEntity).find({
            where: group === undefined ? {} : { thresholdId: In(ids) },
            order: { thresholdId: 'ASC', marketAddress: { direction: 'ASC', nulls: 'FIRST' } },
          });
    return { thresholds: thresholds.map(toThresholdRecord), marketThresholds: links.map(toLinkRecord) };
  }
}
