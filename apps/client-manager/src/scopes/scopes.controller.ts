import { Get, Route, Tags } from '@tsoa/runtime';
import type { GetScopesResponse } from '@ocg/contracts';
import type { ScopeService } from './scope.service';

@Route('auth')
@Tags('Auth')
export class ScopesController {
  constructor(private readonly scopes: ScopeService) {}

  /**
   * Lists every scope an API key may hold, with consent wording. Filter on
   * `oauthGrantable` for the set an OAuth app may be given.
   * @summary List scopes
   */
  @Get('scopes')
  public listScopes(): GetScopesResponse {
    return this.scopes.list();
  }
}
