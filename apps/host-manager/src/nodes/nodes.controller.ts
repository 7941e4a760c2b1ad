import { Body, Get, Middlewares, Path, Post, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { ErrorBody, ListNodesResponse, NodeControlRequest, NodeControlResponse, NodeRecord, RegisterNodeRequest, RegisterNodeResponse } from '@ocg/contracts';
import type { NodeControlService } from './node-control.service';
import type { NodeService } from './node.service';
import { bodyMatches } from '../body-schema';
import { nodeAddressOf } from './node-identity';

@Route('nodes')
@Tags('Nodes')
export class NodesController {
  constructor(
    private readonly nodes: NodeService,
    private readonly control: NodeControlService,
  ) {}

  /**
   * Registers the node whose ed25519 key signs the request (headers
   * `x-ocg-node: <node address>` and `authorization: <signed auth header>`
   * over method, path and body; see the host-manager README) in a market,
   * with the market's join token. Registering again updates the node.
   * A node of a GPU market must report at least one GPU.
   * @summary Register a node
   */
  @Post('register')
  @Response<ErrorBody>(404, 'No market with this address or name')
  @Security('nodeSignature')
  @Middlewares(bodyMatches('RegisterNodeRequest'))
  public registerNode(@Request() req: ExRequest, @Body() body: RegisterNodeRequest): Promise<RegisterNodeResponse> {
    return this.nodes.register(nodeAddressOf(req), body);
  }

  /**
   * Lists nodes with their status (ONLINE while heartbeats arrive), specs and market.
   * @summary List nodes
   * @param market Only nodes of this market (address or name).
   * @param limit At most this many (1 to 1000, default 100).
   * @param offset Skip this many.
   * @isInt limit
   * @minimum limit 1
   * @maximum limit 1000
   * @isInt offset
   * @minimum offset 0
   * @maximum offset 1000000000
   * @maxLength market 200
   */
  @Get()
  @Response<ErrorBody>(404, 'No market with this address or name (the `market` filter)')
  @Security('bearerAuth', ['markets:read'])
  public listNodes(@Query() market?: string, @Query() limit?: number, @Query() offset?: number): Promise<ListNodesResponse> {
    return this.nodes.list({ market, limit, offset });
  }

  /**
   * Reads one node.
   * @summary Get a node
   * @param node The node's address.
   * @maxLength node 100
   */
  @Get('{node}')
  @Response<ErrorBody>(404, 'No node with this address')
  @Security('bearerAuth', ['markets:read'])
  public getNode(@Path() node: string): Promise<NodeRecord> {
    return this.nodes.get(node);
  }

  /**
   * Takes the node out of service: its claims, heartbeats and registrations
   * are refused, and its jobs are stopped and settled (STOPPED, billed until
   * now). It stays listed, as DISABLED, until enabled or removed.
   * @summary Disable a node
   * @param node The node's address.
   * @maxLength node 100
   */
  @Post('{node}/disable')
  @Response<ErrorBody>(404, 'No node with this address')
  @Security('bearerAuth', ['nodes:manage'])
  public disableNode(@Path() node: string, @Body() body?: NodeControlRequest): Promise<NodeControlResponse> {
    return this.control.disable(node, body?.reason);
  }

  /**
   * Lets a disabled node register, heartbeat and claim jobs again.
   * @summary Enable a node
   * @param node The node's address.
   * @maxLength node 100
   */
  @Post('{node}/enable')
  @Response<ErrorBody>(404, 'No node with this address')
  @Security('bearerAuth', ['nodes:manage'])
  public enableNode(@Path() node: string): Promise<NodeControlResponse> {
    return this.control.enable(node);
  }

  /**
   * Stops and settles the node's jobs, then forgets the node. It may join
   * again only with its market's current join token: rotate the token first
   * to keep it out, or disable it instead.
   * @summary Remove a node
   * @param node The node's address.
   * @maxLength node 100
   */
  @Post('{node}/remove')
  @Response<ErrorBody>(404, 'No node with this address')
  @Security('bearerAuth', ['nodes:manage'])
  public removeNode(@Path() node: string, @Body() body?: NodeControlRequest): Promise<NodeControlResponse> {
    return this.control.remove(node, body?.reason);
  }
}
