/** A scope an API key (or, where grantable, an OAuth access token) may hold. */
export interface ScopeRecord {
  /** The scope token, for example `credits:read`. */
  scope: string;
  /** User-facing consent wording. */
  description: string;
  /** false for scopes whose routes accept an API key only. */
  oauthGrantable: boolean;
}

interface CatalogEntry extends ScopeRecord {
  /** Admin scopes are held by operators, never given to a user's first key. */
  admin: boolean;
}

const catalog = [
  { scope: 'api-keys:manage', description: 'Create, view, update and delete your API keys.', oauthGrantable: true, admin: false },
  { scope: 'wallet:sign', description: "Sign messages with your wallet's key to authenticate to other services on your behalf.", oauthGrantable: true, admin: false },
  { scope: 'credits:read', description: 'See your credit balance, holds and spending history.', oauthGrantable: true, admin: false },
  { scope: 'jobs:read', description: 'See your jobs, their status, endpoints, logs and results.', oauthGrantable: true, admin: false },
  { scope: 'jobs:write', description: 'Post, stop and extend jobs, spending your credits.', oauthGrantable: true, admin: false },
  { scope: 'markets:read', description: 'See markets, their prices and their nodes.', oauthGrantable: true, admin: false },
  { scope: 'users:manage', description: 'Create users and manage their accounts (operators only).', oauthGrantable: false, admin: true },
  { scope: 'credits:grant', description: 'Grant credits to any user (operators only).', oauthGrantable: false, admin: true },
  { scope: 'markets:manage', description: 'Create and update markets and their prices (operators only).', oauthGrantable: false, admin: true },
  { scope: 'nodes:manage', description: 'Create market join tokens and manage nodes (operators only).', oauthGrantable: false, admin: true },
  { scope: 'benchmarks:manage', description: 'Apply benchmark templates and change market thresholds (operators only).', oauthGrantable: false, admin: true },
] as const satisfies readonly CatalogEntry[];

export type Scope = (typeof catalog)[number]['scope'];

/** The full catalog as the scope list operation returns it. */
export const SCOPE_CATALOG: readonly ScopeRecord[] = catalog.map(({ scope, description, oauthGrantable }) => ({
  scope,
  description,
  oauthGrantable,
}));

/** Every scope a user holds: what the first API key of a new user carries. */
export const USER_SCOPES: readonly Scope[] = catalog.filter((s) => !s.admin).map((s) => s.scope);

/** Every scope, admin ones included: what an operator's key carries. */
export const ALL_SCOPES: readonly Scope[] = catalog.map((s) => s.scope);

const known = new Set<string>(ALL_SCOPES);
export const isScope = (value: string): value is Scope => known.has(value);

const grantable = new Set<string>(catalog.filter((s) => s.oauthGrantable).map((s) => s.scope));
export const isOauthGrantable = (scope: string): boolean => grantable.has(scope);
