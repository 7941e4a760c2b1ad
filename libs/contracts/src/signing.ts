/**
 * Text to sign, as UTF-8.
 * @minLength 1
 * @maxLength 10000
 */
export type MessageText = string;

export interface SignMessageRequest {
  message: MessageText;
  /** Sign `<message>:<timestamp>` with the current Unix time in ms, and return the timestamp. */
  includeTime?: boolean;
}

export interface SignMessageResponse {
  message: string;
  /** Base58 of the 64-byte ed25519 signature. */
  signature: string;
  /** Unix ms; present only when `includeTime` was true (the signature then covers `<message>:<timestamp>`). */
  timestamp?: number;
  /** The base58 wallet address whose key signed. */
  userAddress: string;
}

export interface SignMessagesRequest {
  /**
   * @minItems 1
   * @maxItems 100
   */
  messages: MessageText[];
  /** One timestamp for the whole batch, bound into every signature. */
  includeTime?: boolean;
}

export interface SignatureRecord {
  message: string;
  /** Base58 of the 64-byte ed25519 signature. */
  signature: string;
  /** Unix ms; present only when `includeTime` was true. */
  timestamp?: number;
  userAddress: string;
}

export interface SignMessagesResponse {
  userAddress: string;
  /** One per message, in request order. */
  signatures: SignatureRecord[];
}
