import { Body, Middlewares, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { ErrorBody, NodeHeartbeatRequest, NodeHeartbeatResponse } from '@ocg/contracts';
import type { NodeService } from './node.service';
import { bodyMatches } from '../body-schema';
import { nodeAddressOf } from './node-identity';

@Route('nodes')
@Tags('Heartbeats')
export class HeartbeatsController {
  constructor(private readonly nodes: NodeService) {}

  /**
   * Keeps the signing node ONLINE for `presenceTtlSeconds`; send one every
   * `heartbeatIntervalSeconds`. Signed like registration. Optionally reports changed specs.
   * @summary Send a node heartbeat
   */
  @Post('heartbeat')
  @Response<ErrorBody>(404, 'This node is not registered')
  @Security('nodeSignature')
  @Middlewares(bodyMatches('NodeHeartbeatRequest'))
  public heartbeat(@Request() req: ExRequest, @Body() body: NodeHeartbeatRequest): Promise<NodeHeartbeatResponse> {
    return this.nodes.heartbeat(nodeAddressOf(req), body);
  }
}
