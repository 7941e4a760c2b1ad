/** Who is calling, as the authentication hook puts it on `req.user`. */
export type IdentityKind = 'apiKey' | 'internal' | 'node';

export interface Identity {
  kind: IdentityKind;
  /** The owning user of an API key; null for internal and node callers. */
  userId: string | null;
  apiKeyId?: string;
  /** The node address, for `kind: 'node'`. */
  nodeAddress?: string;
  /** What the credential may do; empty for internal and node callers (their routes name no scopes). */
  scopes: string[];
  /** The key owner's record (wallet address included), for API-key callers. */
  user?: KeyOwner;
}

/** The owner of a key as `POST /auth/validate-api-key` reports it (the spec's user record). */
export interface KeyOwner {
  id: string;
  email?: string;
  name?: string | null;
  generatedAddress?: string;
  [member: string]: unknown;
}

/** An active API key: what a validator answers for a key that may be used. */
export interface ValidatedKey {
  apiKeyId: string;
  userId: string;
  scopes: string[];
  user: KeyOwner;
  /** Unix ms when the key expires (no cache may keep it past that); absent when it never does. */
  expiresAt?: number;
}

/** Answers whether an API key is active and whose it is; null for any key that may not be used. */
export interface KeyValidator {
  validate(apiKey: string): Promise<ValidatedKey | null>;
}

/** The identity tsoa's authentication put on the request; throws when a route forgot its @Security. */
export function identityOf(req: object): Identity {
  const user = (req as { user?: unknown }).user as Identity | undefined;
  if (!user || typeof user !== 'object' || !('kind' in user)) throw new Error('no authenticated identity on this request: is the route missing @Security?');
  return user;
}
