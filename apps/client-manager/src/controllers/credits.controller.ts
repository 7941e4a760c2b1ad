import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ErrorBody, GetCreditBalanceResponse, GrantCreditsRequest, GrantCreditsResponse } from '@ocg/contracts';
import { principalOf } from '../auth/principal';
import type { CreditsService } from '../services/credits.service';

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
   * named by id or email.
   * @summary Grant credits
   */
  @Post('grant')
  @Security('bearerAuth', ['credits:grant'])
  @Response<ErrorBody>(404, 'No such user')
  public grantCredits(@Body() body: GrantCreditsRequest): Promise<GrantCreditsResponse> {
    return this.credits.grant(body);
  }
}
