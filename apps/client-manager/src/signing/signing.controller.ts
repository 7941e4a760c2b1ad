import type { Request as ExRequest } from 'express';
import { Body, Controller, Post, Request, Route, Security, Tags } from '@tsoa/runtime';
import type { SignMessageRequest, SignMessageResponse, SignMessagesRequest, SignMessagesResponse } from '@ocg/contracts';
import { principalOf } from '../auth/principal';
import type { SigningService } from './signing.service';

@Route('auth')
@Tags('Auth')
export class SigningController extends Controller {
  constructor(private readonly signing: SigningService) {
    super();
  }

  /**
   * Signs one message with the caller's wallet key, to authenticate to an
   * external service. With `includeTime` the signature covers
   * `<message>:<timestamp>`, so `<message>:<signature>:<timestamp>` is a
   * signed auth header that expires.
   * @summary Sign a message
   */
  @Post('sign-message/external')
  @Security('bearerAuth', ['wallet:sign'])
  @Security('serviceOAuth', ['wallet:sign'])
  public signMessage(@Request() req: ExRequest, @Body() body: SignMessageRequest): Promise<SignMessageResponse> {
    return this.signing.signOne(principalOf(req), body);
  }

  /**
   * Signs up to 100 messages with the caller's wallet key (e.g. one auth
   * header per running job), in request order, with one timestamp.
   * @summary Sign messages
   */
  @Post('sign-messages/external')
  @Security('bearerAuth', ['wallet:sign'])
  @Security('serviceOAuth', ['wallet:sign'])
  public signMessages(@Request() req: ExRequest, @Body() body: SignMessagesRequest): Promise<SignMessagesResponse> {
    return this.signing.signMany(principalOf(req), body);
  }
}
