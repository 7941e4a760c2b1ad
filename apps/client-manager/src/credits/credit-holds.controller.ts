import { Body, Controller, Hidden, Path, Post, Route, Security, Tags } from '@tsoa/runtime';
import type { CreateCreditHoldRequest, CreditHoldRecord, ReleaseCreditHoldRequest, SettleCreditHoldRequest } from '@ocg/contracts';
import type { CreditsService } from './credits.service';

/**
 * Service-to-service (deployment-manager), acting for `userId`: hidden from
 * the public document, so the gateway has no route to them, and guarded by
 * the internal credential.
 */
@Hidden()
@Route('credits/holds')
@Tags('Credits')
@Security('internal')
export class CreditHoldsController extends Controller {
  constructor(private readonly credits: CreditsService) {
    super();
  }

  /** Places a hold; the same `reference` again returns the same hold. 402 INSUFFICIENT_BALANCE when it would overdraw. */
  @Post('/')
  public createCreditHold(@Body() body: CreateCreditHoldRequest): Promise<CreditHoldRecord> {
    return this.credits.hold(body);
  }

  /** Captures part of a hold; `final` releases the rest and closes it. */
  @Post('{id}/settle')
  public settleCreditHold(@Path() id: string, @Body() body: SettleCreditHoldRequest): Promise<CreditHoldRecord> {
    return this.credits.settle(id, body);
  }

  /** Gives back part (or, without `amount`, all) of what a hold still holds. */
  @Post('{id}/release')
  public releaseCreditHold(@Path() id: string, @Body() body: ReleaseCreditHoldRequest): Promise<CreditHoldRecord> {
    return this.credits.release(id, body);
  }
}
