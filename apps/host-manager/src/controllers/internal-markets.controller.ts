import { Get, Hidden, Path, Route, Security } from '@tsoa/runtime';
import type { MarketRecord } from '@ocg/contracts';
import type { MarketService } from '../services/market.service';

/**
 * For other services (deployment-manager resolves the market of a job
 * being posted). Hidden from the public contract, so the gateway has no
 * route to it, and it takes only the internal credential.
 */
@Route('internal/markets')
@Hidden()
export class InternalMarketsController {
  constructor(private readonly markets: MarketService) {}

  /** @param market The market's address, or its name (case-insensitive). */
  @Get('{market}')
  @Security('internal')
  public resolveMarket(@Path() market: string): Promise<MarketRecord> {
    return this.markets.get(market);
  }
}
