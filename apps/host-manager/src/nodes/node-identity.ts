import { identityOf } from '@ocg/auth';

/** The address of the node that signed the request (routes with @Security('nodeSignature')). */
export function nodeAddressOf(req: object): string {
  const identity = identityOf(req);
  if (identity.kind !== 'node' || !identity.nodeAddress) throw new Error('this route needs @Security("nodeSignature")');
  return identity.nodeAddress;
}
