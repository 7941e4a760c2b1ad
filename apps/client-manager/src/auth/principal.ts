import type { Request } from 'express';

/** Who is calling: a user, through one of their API keys or an OAuth access token. */
export interface Principal {
  kind: 'api-key' | 'oauth';
  userId: string;
  /** For an access token: only the known, OAuth-grantable scopes it carries. */
  scopes: readonly string[];
  /** The calling key, for `api-key` principals. */
  keyId?: string;
}

/** What tsoa's authentication put on the request (`request.user`). */
export function principalOf(req: Request): Principal {
  return (req as Request & { user: Principal }).user;
}
