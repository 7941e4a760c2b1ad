/**
 * @ocg/auth: pure credential and crypto primitives (API keys, secrets at
 * rest, ed25519 wallets, signed auth headers, ids). No I/O, no config:
 * callers pass keys and clocks in. Formats: README.md.
 */
export { API_KEY_LENGTH, API_KEY_PATTERN, API_KEY_PREFIX, apiKeyLookupHash, generateApiKey, isWellFormedApiKey } from './api-key';
export { DEVELOPMENT_MASTER_KEY, MasterKeyError, SecretDecryptionError, decryptSecret, encryptSecret, parseMasterKey, resolveMasterKey } from './secret-box';
export {
  SIGNATURE_CHECKS_WAITING_MAX,
  type Wallet,
  WalletSigner,
  createSigner,
  generateWallet,
  isAddress,
  signMessage,
  verifySignature,
  verifySignatureBytesAsync,
  walletFromSeed,
} from './wallet';
export {
  AUTH_HEADER_CLOCK_SKEW_SECONDS,
  AUTH_HEADER_MAX_AGE_SECONDS,
  NODE_API_MESSAGE_PREFIX,
  nodeApiMessage,
  type AuthHeaderCheck,
  type AuthHeaderFailure,
  type ParsedAuthHeader,
  type SignedMessage,
  type VerifyAuthHeaderOptions,
  createAuthHeader,
  parseAuthHeader,
  signForExternal,
  verifyAuthHeader,
  verifyAuthHeaderAsync,
} from './auth-header';
export { isRandomId, randomId, safeEqual } from './ids';
export * from './service';
