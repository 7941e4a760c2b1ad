import { Get, Hidden, Path, Route, Security } from '@tsoa/runtime';
import type { NodeRecord } from '@ocg/contracts';
import type { NodeService } from './node.service';

/**
 * For the gateway's ingress: where a node's ingress is. Host names arrive
 * lowercased, so the address matches case-insensitively. Hidden from the
 * public contract and internal-credential only.
 */
@Route('internal/nodes')
@Hidden()
export class InternalNodesController {
  constructor(private readonly nodes: NodeService) {}

  /** @param node The node's address, in any case. */
  @Get('{node}')
  @Security('internal')
  public findNode(@Path() node: string): Promise<NodeRecord> {
    return this.nodes.getIgnoringCase(node);
  }
}
