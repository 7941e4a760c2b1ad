import { Body, Hidden, Path, Post, Route, Security } from '@tsoa/runtime';
import type { NodeJobsService } from '../jobs/node-jobs.service';

interface StopNodeJobsRequest {
  /**
   * The end reason of the node's jobs.
   * @minLength 1
   * @maxLength 500
   */
  reason: string;
}

interface StopNodeJobsResponse {
  /** The jobs this call stopped. */
  stopped: string[];
}

/**
 * For host-manager, when an operator disables or removes a node (or revokes
 * it by rotating its market's join token). Hidden from the public contract
 * and internal-credential only.
 */
@Route('internal/nodes')
@Hidden()
export class InternalNodesController {
  constructor(private readonly nodeJobs: NodeJobsService) {}

  /** Ends every job running on the node (STOPPED, billed until now, settled). */
  @Post('{node}/stop-jobs')
  @Security('internal')
  public async stopNodeJobs(@Path() node: string, @Body() body: StopNodeJobsRequest): Promise<StopNodeJobsResponse> {
    return { stopped: await this.nodeJobs.stopNode(node, body.reason) };
  }
}
