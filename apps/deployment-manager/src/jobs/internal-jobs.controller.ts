import { Get, Hidden, Path, Query, Route, Security } from '@tsoa/runtime';
import type { JobPageRecord, JobRouteRecord } from '@ocg/contracts';
import type { JobQueryService } from './job-query.service';

/**
 * For the gateway, which serves `https://<job>[-<port>].<node domain>` by
 * proxying to the node running the job, and renders job pages. Hidden from
 * the public contract (so the gateway has no route to it) and guarded by the
 * internal credential.
 */
@Route('internal/jobs')
@Hidden()
export class InternalJobsController {
  constructor(private readonly query: JobQueryService) {}

  /** @param job The job address in any case (a host name's first label is lowercase). */
  @Get('{job}')
  @Security('internal')
  public routeJob(@Path() job: string): Promise<JobRouteRecord> {
    return this.query.route(job);
  }

  /**
   * The job, every op of its definition and each op's log tail, for the job page:
   * the poster's view when `viewer` is the poster's user id, else the public view.
   * @param job The job address, exactly.
   * @param viewer The signed-in user's id, as the gateway established it.
   */
  @Get('{job}/page')
  @Security('internal')
  public jobPage(@Path() job: string, @Query() viewer?: string): Promise<JobPageRecord> {
    return this.query.page(job, viewer);
  }
}
