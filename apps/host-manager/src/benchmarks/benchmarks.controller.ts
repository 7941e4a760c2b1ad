import { Get, Path, Query, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ErrorBody, GetBenchmarkResponse, ListBenchmarksResponse, ListThresholdsResponse } from '@ocg/contracts';
import type { BenchmarkService } from './benchmark.service';

/** Benchmarks gate nodes into markets; anyone who may see markets may see what gates them. */
@Route('')
@Tags('Benchmarks')
export class BenchmarksController {
  constructor(private readonly benchmarks: BenchmarkService) {}

  /**
   * Lists the stored benchmarks, by slug.
   * @summary List benchmarks
   */
  @Get('benchmarks')
  @Security('bearerAuth', ['markets:read'])
  public listBenchmarks(): Promise<ListBenchmarksResponse> {
    return this.benchmarks.list();
  }

  /**
   * Reads one benchmark with the thresholds of its group and their market links.
   * @summary Get a benchmark
   * @maxLength slug 128
   */
  @Get('benchmarks/{slug}')
  @Response<ErrorBody>(404, 'No benchmark with this slug')
  @Security('bearerAuth', ['markets:read'])
  public getBenchmark(@Path() slug: string): Promise<GetBenchmarkResponse> {
    return this.benchmarks.get(slug);
  }

  /**
   * Lists thresholds and their market links (JsonLogic rules over metric values).
   * @summary List thresholds
   * @param group Only thresholds of this group (a benchmark slug).
   */
  @Get('thresholds')
  @Security('bearerAuth', ['markets:read'])
  public listThresholds(@Query() group?: string): Promise<ListThresholdsResponse> {
    return this.benchmarks.thresholds(group);
  }
}
