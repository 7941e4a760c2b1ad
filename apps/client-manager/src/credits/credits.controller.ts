import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Header, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ErrorBody, GetCreditBalanceResponse, GrantCreditsRequest, GrantCreditsResponse } from '@ocg/contracts';
import { principalOf } from '../auth/principal';
import type { CreditsService } from './credits.service';

@Route('credits')
@Tags('Credits')
export class CreditsController extends Controller {
  constructor(private readonly credits: CreditsService) {
    super();
  }

  /**
   * The caller's credits in units (1 credit = 1,000,000 units): available to
   * spend, held by running jobs, and spent.
   * @summary Get your credit balance
   */
  @Get('balance')
  @Security('bearerAuth', ['credits:read'])
  @Security('serviceOAuth', ['credits:read'])
  public getCreditBalance(@Request() req: ExRequest): Promise<GetCreditBalanceResponse> {
    return this.credits.balance(principalOf(req));
  }

  /**
   * Operators only (`credits:grant`, API keys only): adds credits to a user,
   * named by id or email. With an `Idempotency-Key`, sending the same request
   * again answers the same grant without granting twice (also when the first
   * answer was lost); the same key with another request is a 422.
   * @summary Grant credits
   * @param idempotencyKey Any unique text (1 to 200 characters), e.g. a UUID; kept per operator.
   */
  @Post('grant')
  @Security('bearerAuth', ['credits:grant'])
  @Response<ErrorBody>(404, 'No such user')
  @Response<ErrorBody>(422, 'The Idempotency-Key was used with another request')
  public grantCredits(@Request() req: ExRequest, @Body() body: GrantCreditsRequest, @Header('Idempotency-Key') idempotencyKey?: string): Promise<GrantCreditsResponse> {
    return this.credits.grant(principalOf(req), body, idempotencyKey);
  }
}
