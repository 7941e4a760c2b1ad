import { identityOf } from '@ocg/auth';
import type { Caller } from './jobs/caller';

/** The signed-in user of a bearerAuth route, with the wallet that posts their jobs. */
export function callerOf(req: object): Caller {
  const identity = identityOf(req);
  const poster = identity.user?.generatedAddress;
  if (identity.kind !== 'apiKey' || !identity.userId || typeof poster !== 'string')
    throw new Error('this route needs @Security("bearerAuth") and a key owner with a wallet address');
  return { userId: identity.userId, poster };
}

/** The address of the node that signed the request (routes with @Security('nodeSignature')). */
export function nodeOf(req: object): string {
  const identity = identityOf(req);
  if (identity.kind !== 'node' || !identity.nodeAddress) throw new Error('this route needs @Security("nodeSignature")');
  return identity.nodeAddress;
}
