import { Get, Hidden, Path, Query, Route, Security } from '@tsoa/runtime';
import type { JobState, ListMarketJobsResponse } from '@ocg/contracts';
import type { JobQueryService } from '../jobs/job-query.service';

/** For the gateway's market page: the market's jobs. Hidden and internal-credential only. */
@Route('internal/markets')
@Hidden()
export class InternalMarketsController {
  constructor(private readonly query: JobQueryService) {}

  /**
   * A market's jobs in one status, oldest first.
   * @param market The market's address (jobs know their market only by it).
   * @param status Default RUNNING.
   * @param limit 1 to 200, default 50.
   */
  @Get('{market}/jobs')
  @Security('internal')
  public listMarketJobs(@Path() market: string, @Query() status?: JobState, @Query() limit?: number): Promise<ListMarketJobsResponse> {
    return this.query.ofMarket(market, status, limit);
  }
}
