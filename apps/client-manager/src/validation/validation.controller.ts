import type { Request as ExRequest } from 'express';
import { Body, Controller, Post, Request, Response, Route, Tags } from '@tsoa/runtime';
import type { ErrorBody, ValidateApiKeyRequest, ValidateApiKeyResponse, ValidateSessionRequest, ValidateSessionResponse } from '@ocg/contracts';
import type { InternalCredential } from '../auth/internal-credential';
import { contextOf } from '../auth/request-context';
import type { SessionService } from '../sessions/session.service';
import type { ValidationService } from './validation.service';

@Route('auth')
@Tags('Auth')
export class ValidationController extends Controller {
  constructor(
    private readonly validation: ValidationService,
    private readonly sessions: SessionService,
    private readonly internal: InternalCredential,
  ) {
    super();
  }

  /**
   * Whether an API key is active, and whose it is. Unknown, malformed,
   * disabled, expired and deleted keys all answer `{valid: false}`. Only
   * failed validations count against the per-address limit (callers validate
   * real keys for every request they serve); an address over it is refused
   * every validation until its window ends.
   * @summary Validate an API key
   */
  @Post('validate-api-key')
  @Response<ErrorBody>(429, 'Too many failed validations from this address; see Retry-After')
  public validateApiKey(@Request() req: ExRequest, @Body() body: ValidateApiKeyRequest): Promise<ValidateApiKeyResponse> {
    return this.validation.validateApiKey(body.apiKey, contextOf(req, this.internal));
  }

  /**
   * Whether a raw Cookie header carries a live session, with its user, a
   * fresh signed auth header and the user's system API key.
   * @summary Validate a session
   */
  @Post('validate-session')
  public validateSession(@Body() body: ValidateSessionRequest): Promise<ValidateSessionResponse> {
    return this.sessions.validate(body.cookieHeader);
  }
}
