import type { Request as ExRequest } from 'express';
import { Body, Controller, Post, Request, Response, Route, Tags } from '@tsoa/runtime';
import type { ErrorBody, LoginRequest, LoginResponse, LogoutResponse } from '@ocg/contracts';
import type { InternalCredential } from '../auth/internal-credential';
import { contextOf } from '../auth/request-context';
import type { SessionService, WithCookie } from './session.service';

@Route('auth')
@Tags('Auth')
export class SessionsController extends Controller {
  constructor(
    private readonly sessions: SessionService,
    private readonly internal: InternalCredential,
  ) {
    super();
  }

  /**
   * Password login: sets the `ocg_session` cookie (HttpOnly, SameSite=Lax,
   * Secure over HTTPS). Wrong email and wrong password answer the same 401.
   * Rate limited per client address.
   * @summary Log in
   */
  @Post('login')
  @Response<ErrorBody>(401, 'Email or password is incorrect')
  @Response<ErrorBody>(429, 'Too many logins from this address; see Retry-After')
  public async login(@Request() req: ExRequest, @Body() body: LoginRequest): Promise<LoginResponse> {
    return this.withCookie(await this.sessions.login(body, contextOf(req, this.internal)));
  }

  /**
   * Ends the session of the request's cookie and clears the cookie.
   * @summary Log out
   */
  @Post('logout')
  public async logout(@Request() req: ExRequest): Promise<LogoutResponse> {
    return this.withCookie(await this.sessions.logout(req.headers.cookie, contextOf(req, this.internal)));
  }

  private withCookie<T>({ body, cookie }: WithCookie<T>): T {
    this.setHeader('Set-Cookie', cookie);
    return body;
  }
}
