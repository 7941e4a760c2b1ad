import type { ScopeRecord } from './scopes';

export interface GetScopesResponse {
  /** Every scope an API key may hold. Filter on `oauthGrantable` for the set an OAuth app may be given. */
  scopes: ScopeRecord[];
}
