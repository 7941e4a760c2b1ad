import type { Readable } from 'node:stream';
import { Body, Controller, Get, Header, Path, Post, Produces, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { ErrorBody, ExtendJobRequest, InsufficientBalanceErrorBody, JobRecord, ListJobsResponse, PostJobRequest } from '@ocg/contracts';
import type { JobControlService } from './job-control.service';
import { SSE_HEADERS, type JobEventStreams } from './job-event-stream';
import type { JobPostService } from './job-post.service';
import type { JobQueryService } from './job-query.service';
import { callerOf } from '../identity';

@Route('jobs')
@Tags('Deployments Jobs')
export class JobsController extends Controller {
  constructor(
    private readonly posts: JobPostService,
    private readonly query: JobQueryService,
    private readonly control: JobControlService,
    private readonly events: JobEventStreams,
  ) {
    super();
  }

  /**
   * Posts a job definition (inline, or by the content id of an upload) to a
   * market. The definition is validated (400 with a JSON pointer per
   * problem), the market's price per second × the duration is held from the
   * balance at once (402 naming balance and amount required, and no job is
   * created), and the job is QUEUED until a node of the market claims it.
   * With an `Idempotency-Key`, sending the same request again answers the
   * same job; the same key with another request is a 422.
   * @summary Post a job
   * @param idempotencyKey Any unique text (1 to 200 characters), e.g. a UUID; kept per user.
   */
  @Post()
  @Security('bearerAuth', ['jobs:write'])
  @Response<InsufficientBalanceErrorBody>(402, 'The balance does not cover price per second × duration (`available` and `required` in units)')
  @Response<ErrorBody>(404, 'No such market (or no such content id among yours)')
  @Response<ErrorBody>(409, 'An earlier attempt with this Idempotency-Key was abandoned; post again with a new key')
  @Response<ErrorBody>(422, 'The Idempotency-Key was used with another request')
  public postJob(@Request() req: ExRequest, @Body() body: PostJobRequest, @Header('Idempotency-Key') idempotencyKey?: string): Promise<JobRecord> {
    return this.posts.post(callerOf(req), body, idempotencyKey);
  }

  /**
   * Lists the caller's jobs, newest first, a page at a time.
   * @summary List jobs
   * @param limit Jobs per page, 1 to 200 (default 50).
   * @param cursor `nextCursor` of the previous page.
   * @isInt limit
   * @minimum limit 1
   * @maximum limit 200
   */
  @Get()
  @Security('bearerAuth', ['jobs:read'])
  public listJobs(@Request() req: ExRequest, @Query() limit?: number, @Query() cursor?: string): Promise<ListJobsResponse> {
    return this.query.list(callerOf(req), limit, cursor);
  }

  /**
   * Reads one of the caller's jobs: status, node, price, timestamps, content
   * ids of definition and result, op states and endpoints with their public URLs.
   * @summary Get a job
   * @param job The job address.
   * @maxLength job 100
   */
  @Get('{job}')
  @Security('bearerAuth', ['jobs:read'])
  @Response<ErrorBody>(404, "No such job among the caller's")
  public getJob(@Request() req: ExRequest, @Path() job: string): Promise<JobRecord> {
    return this.query.get(callerOf(req), job);
  }

  /**
   * Follows one of the caller's jobs as Server-Sent Events. The first event
   * is a `snapshot` (the job as `GET /jobs/{job}` answers it); then, as they
   * happen: `job` (status, reason, node, duration and times: also after an
   * extension), `op` (an op's state as its node reports it, with any
   * progress fields), `endpoint` (`{op, port, url, status}`: ONLINE is up,
   * OFFLINE down) and `log` (`{op, lines}`: an op's last lines grew; `nodeerr`
   * lines say what the node does, such as pulling an image). Every event
   * but a `reset` has an `id`: send the last one seen as `Last-Event-ID`
   * (or the `lastEventId` query parameter) to resume after it without losing
   * or repeating any. When the events after it are no longer kept, the
   * stream starts with a `reset` event saying so, then a snapshot. A comment
   * line comes every 15 s while nothing happens; the stream ends after the
   * job's final status. Open streams are capped per job and per user (429).
   * @summary Follow a job's events
   * @param job The job address.
   * @param lastEventId The `id` of the last event received: the stream resumes after it.
   * @param after The same as `Last-Event-ID`, for clients that cannot set headers (the header wins).
   * @maxLength job 100
   * @maxLength lastEventId 41
   * @maxLength after 41
   */
  @Get('{job}/events')
  @Security('bearerAuth', ['jobs:read'])
  @Produces('text/event-stream')
  @Response<ErrorBody>(404, "No such job among the caller's")
  @Response<ErrorBody>(429, 'Too many open event streams of this job, or of the caller')
  public async followJob(@Request() req: ExRequest, @Path() job: string, @Header('Last-Event-ID') lastEventId?: string, @Query('lastEventId') after?: string): Promise<Readable> {
    const stream = await this.events.open(callerOf(req), job, lastEventId ?? after);
    for (const [name, value] of Object.entries(SSE_HEADERS)) this.setHeader(name, value);
    return stream;
  }

  /**
   * Stops a job now. Billing ends at this moment: the hold settles for the
   * seconds run and the rest is released; the node removes the containers
   * at its next sync. Stopping a stopped job answers it again.
   * @summary Stop a job
   * @param job The job address.
   * @maxLength job 100
   */
  @Post('{job}/stop')
  @Security('bearerAuth', ['jobs:write'])
  @Response<ErrorBody>(404, "No such job among the caller's")
  @Response<ErrorBody>(409, 'The job already completed or failed')
  public stopJob(@Request() req: ExRequest, @Path() job: string): Promise<JobRecord> {
    return this.control.stop(callerOf(req), job);
  }

  /**
   * Adds seconds to a queued or running job's duration, holding their price
   * at once (402 when the balance is short). The total may not exceed the
   * market's maximum duration (400). With an `Idempotency-Key`, sending the
   * same request again answers the job without extending it twice (also
   * when the first attempt's answer was lost); the same key with another
   * request is a 422.
   * @summary Extend a job
   * @param job The job address.
   * @param idempotencyKey Any unique text (1 to 200 characters), e.g. a UUID; kept per user for `IDEMPOTENCY_KEY_TTL_SECONDS`.
   * @maxLength job 100
   */
  @Post('{job}/extend')
  @Security('bearerAuth', ['jobs:write'])
  @Response<InsufficientBalanceErrorBody>(402, 'The balance does not cover the added seconds')
  @Response<ErrorBody>(404, "No such job among the caller's")
  @Response<ErrorBody>(409, 'The job has ended')
  @Response<ErrorBody>(422, 'The Idempotency-Key was used with another request')
  public extendJob(@Request() req: ExRequest, @Path() job: string, @Body() body: ExtendJobRequest, @Header('Idempotency-Key') idempotencyKey?: string): Promise<JobRecord> {
    return this.control.extend(callerOf(req), job, body.seconds, idempotencyKey);
  }
}
