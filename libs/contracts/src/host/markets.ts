/**
 * Markets: pools of nodes with one price. Prices are integer credit units
 * per second; 1 credit = 1,000,000 units (CREDIT_UNITS), so the cheapest
 * non-zero price is one millionth of a credit per second and no price is
 * ever a float.
 */
export const CREDIT_UNITS = 1_000_000;

export interface MarketRecord {
  /** Base58 of 32 random bytes; never changes. */
  address: string;
  /** Unique, compared case-insensitively; often a GPU model such as `RTX 4090`. */
  name: string;
  /** Credit units per second (1 credit = 1,000,000 units). */
  pricePerSecond: number;
  /** Nodes of this market must report at least one GPU, and jobs may ask for one. */
  gpuRequired: boolean;
  /** A job posted without a timeout runs this long. */
  defaultDurationSeconds: number;
  /** The longest duration a job may ask for. */
  maxDurationSeconds: number;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
}

export interface CreateMarketRequest {
  /**
   * Letters, digits, spaces and `. _ + -`, starting and ending with a letter or digit; must not look like a market address.
   * @minLength 1
   * @maxLength 64
   * @pattern ^[A-Za-z0-9](?:[A-Za-z0-9\x20._+-]*[A-Za-z0-9])?$
   */
  name: string;
  /**
   * Credit units per second (1 credit = 1,000,000 units). At most 1,000,000,000 (1,000 credits per second),
   * so price x maximum duration always fits a safe integer.
   * @isInt
   * @minimum 0
   * @maximum 1000000000
   */
  pricePerSecond: number;
  /** Default false. */
  gpuRequired?: boolean;
  /**
   * Default 7200 (two hours).
   * @isInt
   * @minimum 60
   * @maximum 2592000
   */
  defaultDurationSeconds?: number;
  /**
   * Default 86400 (one day); at least `defaultDurationSeconds`, at most 30 days.
   * @isInt
   * @minimum 60
   * @maximum 2592000
   */
  maxDurationSeconds?: number;
}

export interface CreateMarketResponse extends MarketRecord {
  /** The secret nodes present to join this market. Shown only here and by the rotate operation. */
  joinToken: string;
}

/** Members left out keep their value. */
export interface UpdateMarketRequest {
  /**
   * @minLength 1
   * @maxLength 64
   * @pattern ^[A-Za-z0-9](?:[A-Za-z0-9\x20._+-]*[A-Za-z0-9])?$
   */
  name?: string;
  /**
   * @isInt
   * @minimum 0
   * @maximum 1000000000
   */
  pricePerSecond?: number;
  gpuRequired?: boolean;
  /**
   * @isInt
   * @minimum 60
   * @maximum 2592000
   */
  defaultDurationSeconds?: number;
  /**
   * @isInt
   * @minimum 60
   * @maximum 2592000
   */
  maxDurationSeconds?: number;
}

export interface ListMarketsResponse {
  /** Every market, by name. */
  markets: MarketRecord[];
  total: number;
}

export interface RotateJoinTokenResponse {
  /** The market's address. */
  address: string;
  /** The new join token; the previous one stops working at once (registered nodes stay registered). */
  joinToken: string;
}
