import { SCOPE_CATALOG, type GetScopesResponse } from '@ocg/contracts';

export class ScopeService {
  private readonly response: GetScopesResponse = { scopes: SCOPE_CATALOG.map((s) => ({ ...s })) };

  list(): GetScopesResponse {
    return this.response;
  }
}
