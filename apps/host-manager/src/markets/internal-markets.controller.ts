import { Get, Hidden, Path, Query, Route, Security } from '@tsoa/runtime';
import type { ListMarketNodesResponse, MarketRecord } from '@ocg/contracts';
import type { MarketService } from './market.service';
import type { NodeService } from '../nodes/node.service';

/**
 * For other services: deployment-manager resolves the market of a job being
 * posted, the gateway renders market pages. Hidden from the public contract,
 * so the gateway has no route to it, and it takes only the internal credential.
 */
@Route('internal/markets')
@Hidden()
export class InternalMarketsController {
  constructor(
    private readonly markets: MarketService,
    private readonly nodes: NodeService,
  ) {}

  /** @param market The market's address, or its name (case-insensitive). */
  @Get('{market}')
  @Security('internal')
  public resolveMarket(@Path() market: string): Promise<MarketRecord> {
    return this.markets.get(market);
  }

  /**
   * The market's nodes with their status, without their ingress URLs.
   * @param market The market's address, or its name (case-insensitive).
   * @param limit At most this many (1 to 1000, default 100).
   */
  @Get('{market}/nodes')
  @Security('internal')
  public listMarketNodes(@Path() market: string, @Query() limit?: number): Promise<ListMarketNodesResponse> {
    return this.nodes.ofMarket(market, limit);
  }
}
