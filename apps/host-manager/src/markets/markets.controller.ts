import { Body, Get, Path, Post, Response, Route, Security, Tags } from '@tsoa/runtime';
import type {
  CreateMarketRequest,
  CreateMarketResponse,
  ErrorBody,
  ListMarketsResponse,
  MarketRecord,
  RotateJoinTokenRequest,
  RotateJoinTokenResponse,
  UpdateMarketRequest,
} from '@ocg/contracts';
import type { NodeControlService } from '../nodes/node-control.service';
import type { MarketService } from './market.service';

@Route('markets')
@Tags('Markets')
export class MarketsController {
  constructor(
    private readonly markets: MarketService,
    private readonly control: NodeControlService,
  ) {}

  /**
   * Creates a market. Prices are integer credit units per second
   * (1 credit = 1,000,000 units). The answer carries the market's join
   * token, which nodes need to register; it is not shown again (rotate it to get a new one).
   * @summary Create a market
   */
  @Post()
  @Response<ErrorBody>(409, 'A market with this name already exists (names are compared ignoring case)')
  @Security('bearerAuth', ['markets:manage'])
  public createMarket(@Body() body: CreateMarketRequest): Promise<CreateMarketResponse> {
    return this.markets.create(body);
  }

  /**
   * Changes a market's name, price, GPU requirement, durations, job limits or container policy; members left out keep their value.
   * @summary Update a market
   * @param market The market's address, or its name (case-insensitive).
   * @maxLength market 200
   */
  @Post('{market}/update')
  @Response<ErrorBody>(404, 'No market with this address or name')
  @Response<ErrorBody>(409, 'Another market already has this name')
  @Security('bearerAuth', ['markets:manage'])
  public updateMarket(@Path() market: string, @Body() body: UpdateMarketRequest): Promise<MarketRecord> {
    return this.markets.update(market, body);
  }

  /**
   * Replaces the market's join token; the old one stops working at once. Registered nodes stay
   * registered, unless `revokeNodes` is true: then every node of the market (each joined with an
   * older token) is removed, its jobs stopped and settled, and it can join again only with the new token.
   * @summary Rotate a market's join token
   * @param market The market's address, or its name (case-insensitive).
   * @maxLength market 200
   */
  @Post('{market}/rotate-join-token')
  @Response<ErrorBody>(404, 'No market with this address or name')
  @Security('bearerAuth', ['nodes:manage'])
  public async rotateJoinToken(@Path() market: string, @Body() body?: RotateJoinTokenRequest): Promise<RotateJoinTokenResponse> {
    const { address, joinToken } = await this.markets.rotateJoinToken(market);
    const revokedNodes = body?.revokeNodes ? await this.control.revokeMarket(address) : [];
    return { address, joinToken, revokedNodes };
  }

  /**
   * Lists every market, by name.
   * @summary List markets
   */
  @Get()
  @Security('bearerAuth', ['markets:read'])
  public listMarkets(): Promise<ListMarketsResponse> {
    return this.markets.list();
  }

  /**
   * Reads one market.
   * @summary Get a market
   * @param market The market's address, or its name (case-insensitive).
   * @maxLength market 200
   */
  @Get('{market}')
  @Response<ErrorBody>(404, 'No market with this address or name')
  @Security('bearerAuth', ['markets:read'])
  public getMarket(@Path() market: string): Promise<MarketRecord> {
    return this.markets.get(market);
  }
}
