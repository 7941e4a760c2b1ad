import { Body, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type {
  ClaimJobRequest,
  ClaimJobResponse,
  ErrorBody,
  FinishJobRequest,
  FinishJobResponse,
  ReportJobRequest,
  ReportJobResponse,
  SyncJobsRequest,
  SyncJobsResponse,
} from '@ocg/contracts';
import type { NodeJobsService } from './node-jobs.service';
import { nodeOf } from '../identity';

/**
 * For node agents. Every request is signed by the node key (headers
 * `x-ocg-node` and `authorization` over method, path and body, as for
 * registration) and the node must be registered and sending heartbeats.
 */
@Route('node-jobs')
@Tags('Deployments Nodes')
export class NodeJobsController {
  constructor(private readonly nodes: NodeJobsService) {}

  /**
   * Claims the oldest queued job of the market: it becomes RUNNING on the
   * calling node, and only one node ever gets it. With `waitSeconds`, waits
   * that long for a job when none is queued.
   * @summary Claim a job
   */
  @Post('claim')
  @Response<ErrorBody>(404, 'This node is not registered')
  @Security('nodeSignature')
  public claimJob(@Request() req: ExRequest, @Body() body: ClaimJobRequest): Promise<ClaimJobResponse> {
    return this.nodes.claim(nodeOf(req), body);
  }

  /**
   * Reports changed op states and endpoint readiness of a job the node runs.
   * The answer says whether the control plane wants the job stopped.
   * @summary Report on a job
   * @param job The job address.
   * @maxLength job 100
   */
  @Post('{job}/report')
  @Response<ErrorBody>(404, 'This node is not registered, or the job is not assigned to it')
  @Security('nodeSignature')
  public reportJob(@Request() req: ExRequest, @Path() job: string, @Body() body: ReportJobRequest): Promise<ReportJobResponse> {
    return this.nodes.report(nodeOf(req), job, body);
  }

  /**
   * The job ended on the node: its outcome, final op states and results.
   * The result is stored in the content-addressed store and the job's
   * credits settle. Sending it again answers the same.
   * @summary Finish a job
   * @param job The job address.
   * @maxLength job 100
   */
  @Post('{job}/finish')
  @Response<ErrorBody>(404, 'This node is not registered, or the job is not assigned to it')
  @Security('nodeSignature')
  public finishJob(@Request() req: ExRequest, @Path() job: string, @Body() body: FinishJobRequest): Promise<FinishJobResponse> {
    return this.nodes.finish(nodeOf(req), job, body);
  }

  /**
   * Lists the jobs running on the node; answers which to stop (stopped by
   * the poster, duration over, not this node's) and every kept job's deadline.
   * @summary Sync running jobs
   */
  @Post('sync')
  @Response<ErrorBody>(404, 'This node is not registered')
  @Security('nodeSignature')
  public syncJobs(@Request() req: ExRequest, @Body() body: SyncJobsRequest): Promise<SyncJobsResponse> {
    return this.nodes.sync(nodeOf(req), body);
  }
}
