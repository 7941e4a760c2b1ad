/**
 * How services other than client-manager authenticate callers (README.md,
 * "Service authentication"). Unlike the rest of @ocg/auth this does I/O:
 * it calls client-manager and listens on Redis.
 */
export { type Identity, type IdentityKind, type KeyOwner, type KeyValidator, type ValidatedKey, identityOf } from './identity';
export {
  API_KEY_INVALIDATION_CHANNEL,
  INTERNAL_TOKEN_HEADER,
  type RemoteKeyValidator,
  type RemoteKeyValidatorOptions,
  remoteKeyValidator,
  toValidatedKey,
} from './remote-key-validator';
export { type CachedValidation, KeyCache } from './key-cache';
export { type KeyInvalidations, followKeyInvalidations } from './key-invalidations';
export { type Invalidation, parseInvalidation } from './invalidation';
export { AuthenticationRegistry, type ExpressAuthentication, type ExpressAuthenticationOptions, busyAsUnavailable, createExpressAuthentication } from './express-auth';
export {
  NODE_ADDRESS_HEADER,
  NODE_REQUEST_PREFIX,
  NODE_SIGNATURE_HEADER,
  type NodeRequest,
  type NodeRequestCheck,
  type NodeRequestFailure,
  canonicalJson,
  describeNodeFailure,
  nodeRequestMessage,
  signNodeRequest,
  verifyNodeRequest,
} from './node-signing';
